#include "harness/dist/hostlist.hpp"

#include <cstdlib>

namespace scalestudy::dist {
namespace {

// Splits at commas that are not inside brackets.
Result<std::vector<std::string>> split_top_level(std::string_view text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return Status::error("unbalanced ']'");
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (depth != 0) return Status::error("unbalanced '['");
  parts.push_back(current);
  return parts;
}

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string zero_padded(long value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// "1-3,05" → {"1","2","3","05"}.
Result<std::vector<std::string>> expand_ranges(const std::string& ranges) {
  std::vector<std::string> values;
  auto items = split_top_level(ranges);
  if (!items) return items.status();
  for (const std::string& item : *items) {
    size_t dash = item.find('-');
    if (dash == std::string::npos) {
      if (!all_digits(item)) return Status::error("bad range item '" + item + "'");
      values.push_back(item);
      continue;
    }
    std::string low = item.substr(0, dash), high = item.substr(dash + 1);
    if (!all_digits(low) || !all_digits(high)) {
      return Status::error("bad range '" + item + "'");
    }
    long first = std::strtol(low.c_str(), nullptr, 10);
    long last = std::strtol(high.c_str(), nullptr, 10);
    if (last < first) return Status::error("descending range '" + item + "'");
    for (long value = first; value <= last; ++value) {
      values.push_back(zero_padded(value, low.size()));
    }
  }
  return values;
}

// Expands one host expression (no top-level commas), bracket group by bracket group.
Result<std::vector<std::string>> expand_host(const std::string& host) {
  size_t open = host.find('[');
  if (open == std::string::npos) return std::vector<std::string>{host};
  size_t close = host.find(']', open);
  if (close == std::string::npos) return Status::error("unbalanced '['");
  auto values = expand_ranges(host.substr(open + 1, close - open - 1));
  if (!values) return values.status();
  auto suffixes = expand_host(host.substr(close + 1));
  if (!suffixes) return suffixes.status();
  std::vector<std::string> hosts;
  for (const std::string& value : *values) {
    for (const std::string& suffix : *suffixes) {
      hosts.push_back(host.substr(0, open) + value + suffix);
    }
  }
  return hosts;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view hostlist) {
  auto context = "hostlist '" + std::string(hostlist) + "'";
  auto parts = split_top_level(hostlist);
  if (!parts) return parts.status().with_context(context);
  std::vector<std::string> hosts;
  for (const std::string& part : *parts) {
    if (part.empty()) return Status::error("empty host name").with_context(context);
    auto expanded = expand_host(part);
    if (!expanded) return expanded.status().with_context(context);
    hosts.insert(hosts.end(), expanded->begin(), expanded->end());
  }
  return hosts;
}

}  // namespace scalestudy::dist
