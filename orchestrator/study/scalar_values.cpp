#include "orchestrator/study/scalar_values.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace scalestudy {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_digit(c)) return false;
  }
  return true;
}

// Decimal floating point: [+-] digits [. digits] [e [+-] digits], with at least one digit
// before or after the point.
bool is_decimal_float(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!all_digits(text.substr(i))) return false;
    i = text.size();
  }
  return i == text.size();
}

}  // namespace

std::optional<long long> parse_integer(std::string_view text) {
  size_t start = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (!all_digits(text.substr(start))) return std::nullopt;
  long long value = 0;
  std::string_view digits = text.substr(start);
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return text[0] == '-' ? -value : value;
}

std::optional<int> parse_time_limit_minutes(std::string_view text) {
  long long days = 0;
  std::string_view clock = text;
  bool has_days = false;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    if (!all_digits(text.substr(0, dash))) return std::nullopt;
    days = *parse_integer(text.substr(0, dash));
    clock = text.substr(dash + 1);
    has_days = true;
  }
  std::vector<long long> fields;
  while (true) {
    size_t colon = clock.find(':');
    std::string_view field = clock.substr(0, colon);
    if (!all_digits(field) || field.size() > 6) return std::nullopt;
    fields.push_back(*parse_integer(field));
    if (colon == std::string_view::npos) break;
    clock = clock.substr(colon + 1);
  }
  if (fields.size() > 3) return std::nullopt;
  long long seconds = 0;
  if (has_days) {
    // D-HH, D-HH:MM, D-HH:MM:SS
    long long hours = fields[0];
    long long minutes = fields.size() > 1 ? fields[1] : 0;
    long long secs = fields.size() > 2 ? fields[2] : 0;
    if (minutes >= 60 || secs >= 60) return std::nullopt;
    seconds = ((days * 24 + hours) * 60 + minutes) * 60 + secs;
  } else if (fields.size() == 1) {
    seconds = fields[0] * 60;  // MM
  } else if (fields.size() == 2) {
    if (fields[1] >= 60) return std::nullopt;
    seconds = fields[0] * 60 + fields[1];  // MM:SS
  } else {
    if (fields[1] >= 60 || fields[2] >= 60) return std::nullopt;
    seconds = (fields[0] * 60 + fields[1]) * 60 + fields[2];  // HH:MM:SS
  }
  long long minutes = (seconds + 59) / 60;
  if (minutes > 365LL * 24 * 60) return std::nullopt;
  return static_cast<int>(minutes);
}

std::string format_time_limit(int minutes) {
  int days = minutes / (24 * 60);
  int hours = minutes / 60 % 24;
  char text[32];
  if (days > 0) {
    std::snprintf(text, sizeof text, "%d-%02d:%02d:00", days, hours, minutes % 60);
  } else {
    std::snprintf(text, sizeof text, "%02d:%02d:00", hours, minutes % 60);
  }
  return text;
}

std::optional<long long> parse_memory_mb(std::string_view text) {
  if (!text.empty() && (text.back() == 'B' || text.back() == 'b')) text.remove_suffix(1);
  long long kilobytes_per_unit = 1024;
  if (!text.empty() && !is_digit(text.back())) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K':
        kilobytes_per_unit = 1;
        break;
      case 'M':
        kilobytes_per_unit = 1024;
        break;
      case 'G':
        kilobytes_per_unit = 1024LL * 1024;
        break;
      case 'T':
        kilobytes_per_unit = 1024LL * 1024 * 1024;
        break;
      default:
        return std::nullopt;
    }
    text.remove_suffix(1);
  }
  if (!all_digits(text) || text.size() > 9) return std::nullopt;
  long long kilobytes = *parse_integer(text) * kilobytes_per_unit;
  return (kilobytes + 1023) / 1024;
}

std::string format_memory(long long megabytes) {
  if (megabytes % 1024 == 0) return std::to_string(megabytes / 1024) + "G";
  return std::to_string(megabytes) + "M";
}

bool looks_numeric(std::string_view text) {
  return is_decimal_float(text);
}

std::string canonical_scalar(const std::string& text, bool quoted) {
  if (quoted) return text;
  if (text == "true" || text == "True" || text == "TRUE") return "true";
  if (text == "false" || text == "False" || text == "FALSE") return "false";
  if (!is_decimal_float(text)) return text;
  if (auto integer = parse_integer(text)) return std::to_string(*integer);
  double value = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(value)) return text;
  if (value == 0) return "0";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return error == std::errc() ? std::string(buffer, end) : text;
}

bool is_identifier(std::string_view text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) {
    return false;
  }
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

}  // namespace scalestudy
