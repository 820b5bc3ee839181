#include "harness/train/flags.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "harness/core/hex.hpp"
#include "harness/core/nearest_name.hpp"

namespace scalestudy::train {
namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += "\\u00";
      append_hex(out, c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

}  // namespace

FlagRule& Flags::declare(const std::string& name, const std::string& default_value,
                         const std::string& help, bool hidden) {
  Declared& declared = flags_[name];
  declared = Declared{default_value, help, hidden, FlagRule{}};
  return declared.rule;
}

void Flags::set_default(const std::string& name, const std::string& value) {
  auto found = flags_.find(name);
  if (found != flags_.end() && !was_set(name)) found->second.value = value;
}

Status Flags::parse(const std::vector<std::string>& arguments) {
  Status first_error = Status::ok();
  auto fail = [&](const std::string& message) {
    if (first_error) first_error = Status::error(message);
  };
  std::vector<std::string> names;
  for (const auto& [name, declared] : flags_) names.push_back(name);
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (argument == "--help" || argument == "-h") {
      help_requested_ = true;
      continue;
    }
    if (argument.rfind("--", 0) != 0) {
      fail("argument " + std::to_string(i + 1) + " '" + argument +
           "' is not a flag (expected --name value)");
      continue;
    }
    std::string name = argument.substr(2);
    auto found = flags_.find(name);
    if (found == flags_.end()) {
      auto nearest = nearest_name(name, names);
      fail("unknown flag --" + name + (nearest ? " (did you mean --" + *nearest + "?)" : ""));
      if (i + 1 < arguments.size() && arguments[i + 1].rfind("--", 0) != 0) ++i;
      continue;
    }
    if (i + 1 >= arguments.size()) {
      fail("flag --" + name + " needs a value");
      continue;
    }
    found->second.value = arguments[++i];
    set_[name] = true;
  }
  return first_error;
}

std::string Flags::get(const std::string& name) const {
  auto found = flags_.find(name);
  return found == flags_.end() ? std::string() : found->second.value;
}

Result<int64_t> Flags::get_int(const std::string& name) const {
  std::string text = get(name);
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0') {
    return Status::error("flag --" + name + ": '" + text + "' is not an integer");
  }
  return static_cast<int64_t>(value);
}

Result<double> Flags::get_double(const std::string& name) const {
  std::string text = get(name);
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || errno != 0 || *end != '\0') {
    return Status::error("flag --" + name + ": '" + text + "' is not a number");
  }
  return value;
}

Result<bool> Flags::get_bool(const std::string& name) const {
  std::string text = get(name);
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return Status::error("flag --" + name + ": '" + text + "' is not true or false");
}

std::map<std::string, std::string> Flags::resolved() const {
  std::map<std::string, std::string> values;
  for (const auto& [name, declared] : flags_) values[name] = declared.value;
  return values;
}

std::string Flags::usage(const std::string& program) const {
  std::ostringstream text;
  text << "usage: " << program << " [--name value]...\n";
  for (const auto& [name, declared] : flags_) {
    if (declared.hidden) continue;
    text << "  --" << name;
    for (size_t pad = name.size(); pad < 24; ++pad) text << ' ';
    text << declared.help << " (default: " << (declared.value.empty() ? "none" : declared.value)
         << ")\n";
  }
  return text.str();
}

std::string Flags::describe_json(const std::string& workload, const std::string& git_commit) const {
  std::string json = "{\"workload\": " + json_string(workload) +
                     ", \"git_commit\": " + json_string(git_commit) + ", \"flags\": [";
  bool first = true;
  for (const auto& [name, declared] : flags_) {
    json += first ? "\n  {" : ",\n  {";
    first = false;
    json += "\"name\": " + json_string(name);
    json += ", \"type\": " + json_string(flag_type_name(declared.rule.type));
    json += ", \"default\": " + json_string(declared.value);
    if (declared.rule.min) json += ", \"min\": " + json_number(*declared.rule.min);
    if (declared.rule.max) json += ", \"max\": " + json_number(*declared.rule.max);
    if (declared.rule.type == FlagRule::Type::kChoice) {
      json += ", \"choices\": [";
      for (size_t c = 0; c < declared.rule.choices.size(); ++c) {
        json += (c ? ", " : "") + json_string(declared.rule.choices[c]);
      }
      json += "]";
    }
    json += ", \"help\": " + json_string(declared.help) + "}";
  }
  return json + "\n]}\n";
}

void declare_data_source_flags(Flags& flags) {
  flags.declare("data-root", "",
                "data set folder; default $SCALESTUDY_DATA_ROOT, then the set's own");
  flags
      .declare("train-samples", "0",
               "train on N samples spread evenly over the classes (seeded); 0: all")
      .integer(0);
  flags
      .declare("val-samples", "0",
               "validate on N samples spread evenly over the classes (fixed); 0: all")
      .integer(0);
}

}  // namespace scalestudy::train
