#include "orchestrator/sysinfo/text.hpp"

#include <cctype>
#include <sstream>

namespace scalestudy::sysinfo {

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> split_lines(const std::string& text) {
  return split(text, '\n');
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

std::string first_line(const std::string& text) {
  return trim(text.substr(0, text.find('\n')));
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::map<std::string, std::string>> parse_colon_blocks(const std::string& text) {
  std::vector<std::map<std::string, std::string>> blocks(1);
  for (const auto& line : split_lines(text)) {
    if (trim(line).empty()) {
      if (!blocks.back().empty()) blocks.emplace_back();
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    blocks.back().emplace(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
  }
  if (blocks.back().empty()) blocks.pop_back();
  return blocks;
}

std::map<std::string, std::string> parse_colon_fields(const std::string& text) {
  auto blocks = parse_colon_blocks(text);
  return blocks.empty() ? std::map<std::string, std::string>{} : blocks.front();
}

std::optional<int> count_cpu_list(const std::string& list) {
  int count = 0;
  for (const auto& range : split(trim(list), ',')) {
    if (range.empty()) continue;
    unsigned first = 0, last = 0;
    char tail = 0;
    if (std::sscanf(range.c_str(), "%u-%u%c", &first, &last, &tail) == 2 && last >= first) {
      count += static_cast<int>(last - first + 1);
    } else if (std::sscanf(range.c_str(), "%u%c", &first, &tail) == 1) {
      count += 1;
    } else {
      return std::nullopt;
    }
  }
  return count;
}

std::optional<std::string> header_define(const std::string& header_text, const std::string& name) {
  auto lines = split_lines(header_text);
  for (size_t index = 0; index < lines.size(); ++index) {
    std::istringstream line(lines[index]);
    std::string directive, found_name;
    line >> directive;
    if (directive == "#") {
      line >> directive;
      directive = "#" + directive;
    }
    if (directive != "#define") continue;
    line >> found_name;
    if (found_name != name) continue;
    std::string value;
    std::getline(line, value);
    value = trim(value);
    // A value continued on the next lines: "#define TORCH_VERSION \" then "  \"1.13.0\"".
    while (!value.empty() && value.back() == '\\' && index + 1 < lines.size()) {
      value.pop_back();
      value = trim(value + " " + trim(lines[++index]));
    }
    value = trim(value.substr(0, value.find("//")));
    value = trim(value.substr(0, value.find("/*")));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (!value.empty()) return value;
  }
  return std::nullopt;
}

std::map<std::string, std::string> parse_env_file(const std::string& text) {
  std::map<std::string, std::string> fields;
  for (const auto& line : split_lines(text)) {
    auto equals = line.find('=');
    if (equals == std::string::npos || trim(line).front() == '#') continue;
    std::string value = trim(line.substr(equals + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    fields[trim(line.substr(0, equals))] = value;
  }
  return fields;
}

std::optional<unsigned long long> leading_number(const std::string& text) {
  std::string trimmed = trim(text);
  if (trimmed.empty() || !std::isdigit(static_cast<unsigned char>(trimmed[0]))) return std::nullopt;
  return std::stoull(trimmed);
}

}  // namespace scalestudy::sysinfo
