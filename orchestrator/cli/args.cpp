#include "orchestrator/cli/args.hpp"

#include <algorithm>
#include <cmath>

#include "harness/core/nearest_name.hpp"
#include "harness/core/whole_number.hpp"

namespace scalestudy::cli {

std::optional<std::string> ParsedArgs::value(const std::string& name) const {
  auto range = values_.equal_range(name);
  if (range.first == range.second) return std::nullopt;
  return std::prev(range.second)->second;  // the last occurrence wins
}

std::string ParsedArgs::value_or(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

std::vector<std::string> ParsedArgs::values(const std::string& name) const {
  std::vector<std::string> all;
  auto range = values_.equal_range(name);
  for (auto it = range.first; it != range.second; ++it) all.push_back(it->second);
  return all;
}

Result<int> ParsedArgs::int_value_or(const std::string& name, int fallback) const {
  auto text = value(name);
  if (!text) return fallback;
  return parse_whole_number(name, *text);
}

Result<std::optional<double>> ParsedArgs::number_value(const std::string& name) const {
  auto text = value(name);
  if (!text) return std::optional<double>();
  try {
    size_t used = 0;
    const double number = std::stod(*text, &used);
    // NaN compares false with every bound, so a gate given it could never fire.
    if (used == text->size() && std::isfinite(number)) return std::optional<double>(number);
  } catch (const std::exception&) {
  }
  return Status::error(name + " takes a finite number, got '" + *text + "'");
}

Result<ParsedArgs> parse_args(const std::vector<std::string>& args, const ArgSpec& spec) {
  ParsedArgs parsed;
  std::vector<std::string> known(spec.value_options.begin(), spec.value_options.end());
  known.insert(known.end(), spec.flag_options.begin(), spec.flag_options.end());
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      parsed.positionals.insert(parsed.positionals.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg == "-h" || arg == "--help") {
      parsed.flags_.insert("--help");
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      parsed.positionals.push_back(arg);
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (auto equals = arg.find('='); equals != std::string::npos) {
      name = arg.substr(0, equals);
      inline_value = arg.substr(equals + 1);
    }
    if (spec.flag_options.count(name) && !inline_value) {
      parsed.flags_.insert(name);
    } else if (spec.value_options.count(name)) {
      if (inline_value) {
        parsed.values_.emplace(name, *inline_value);
      } else if (i + 1 < args.size()) {
        parsed.values_.emplace(name, args[++i]);
      } else {
        return Status::error("option " + name + " needs a value");
      }
    } else {
      std::string message = "unknown option " + name;
      if (auto suggestion = nearest_name(name, known))
        message += " (did you mean " + *suggestion + "?)";
      return Status::error(message);
    }
  }
  return parsed;
}

}  // namespace scalestudy::cli
