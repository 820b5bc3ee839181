#include "harness/core/flag_rule.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace scalestudy {
namespace {

std::optional<long long> parse_integer(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return value;
}

std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

// " >= 1", " from 0 to 1", "": the range for messages.
std::string range_text(const FlagRule& rule) {
  if (rule.min && rule.max) {
    return " from " + number_text(*rule.min) + " to " + number_text(*rule.max);
  }
  if (rule.min) return " >= " + number_text(*rule.min);
  if (rule.max) return " <= " + number_text(*rule.max);
  return "";
}

}  // namespace

FlagRule& FlagRule::integer(std::optional<double> at_least, std::optional<double> at_most) {
  type = Type::kInteger;
  min = at_least;
  max = at_most;
  return *this;
}

FlagRule& FlagRule::number(std::optional<double> at_least, std::optional<double> at_most) {
  type = Type::kNumber;
  min = at_least;
  max = at_most;
  return *this;
}

FlagRule& FlagRule::boolean() {
  type = Type::kBoolean;
  return *this;
}

FlagRule& FlagRule::one_of(std::vector<std::string> words) {
  type = Type::kChoice;
  choices = std::move(words);
  return *this;
}

std::optional<std::string> FlagRule::problem_with(const std::string& value) const {
  const std::string got = ", got '" + value + "'";
  switch (type) {
    case Type::kText:
      return std::nullopt;
    case Type::kBoolean:
      if (value == "true" || value == "false" || value == "1" || value == "0") return std::nullopt;
      return "expected true or false" + got;
    case Type::kChoice: {
      std::string listed;
      for (const auto& choice : choices) {
        if (choice == value) return std::nullopt;
        listed += (listed.empty() ? "" : " | ") + choice;
      }
      return "expected one of " + listed + got;
    }
    case Type::kInteger:
    case Type::kNumber:
      break;
  }
  std::optional<double> parsed;
  if (type == Type::kInteger) {
    if (auto whole = parse_integer(value)) parsed = static_cast<double>(*whole);
  } else {
    parsed = parse_number(value);
  }
  const std::string expected = type == Type::kInteger ? "an integer" : "a number";
  if (!parsed || (min && *parsed < *min) || (max && *parsed > *max)) {
    return "expected " + expected + range_text(*this) + got;
  }
  return std::nullopt;
}

const char* flag_type_name(FlagRule::Type type) {
  switch (type) {
    case FlagRule::Type::kInteger:
      return "integer";
    case FlagRule::Type::kNumber:
      return "number";
    case FlagRule::Type::kBoolean:
      return "boolean";
    case FlagRule::Type::kChoice:
      return "choice";
    case FlagRule::Type::kText:
      break;
  }
  return "text";
}

std::optional<FlagRule::Type> parse_flag_type(const std::string& name) {
  for (auto type : {FlagRule::Type::kText, FlagRule::Type::kInteger, FlagRule::Type::kNumber,
                    FlagRule::Type::kBoolean, FlagRule::Type::kChoice}) {
    if (name == flag_type_name(type)) return type;
  }
  return std::nullopt;
}

}  // namespace scalestudy
