#include "orchestrator/common/host_list.hpp"

#include <cstdlib>
#include <string_view>

namespace scalestudy::common {
namespace {

// The comma-separated items of `text` outside brackets.
std::vector<std::string> top_level_items(std::string_view text) {
  std::vector<std::string> items;
  std::string item;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      if (!item.empty()) items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (!item.empty()) items.push_back(item);
  return items;
}

std::string padded(long number, size_t width) {
  std::string digits = std::to_string(number);
  return digits.size() < width ? std::string(width - digits.size(), '0') + digits : digits;
}

// "prefix[ranges]suffix" into names; one name when the item has no bracket or does not parse.
void expand_item(const std::string& item, std::vector<std::string>& names) {
  const size_t open = item.find('[');
  const size_t close = item.find(']', open);
  if (open == std::string::npos || close == std::string::npos) {
    names.push_back(item);
    return;
  }
  const std::string prefix = item.substr(0, open);
  const std::string suffix = item.substr(close + 1);
  std::vector<std::string> expanded;
  for (const std::string& range : top_level_items(item.substr(open + 1, close - open - 1))) {
    const size_t dash = range.find('-');
    const std::string low = range.substr(0, dash);
    const std::string high = dash == std::string::npos ? low : range.substr(dash + 1);
    char* low_end = nullptr;
    char* high_end = nullptr;
    const long first = std::strtol(low.c_str(), &low_end, 10);
    const long last = std::strtol(high.c_str(), &high_end, 10);
    if (low.empty() || *low_end != '\0' || *high_end != '\0' || last < first) {
      names.push_back(item);
      return;
    }
    for (long number = first; number <= last; ++number) {
      expanded.push_back(prefix + padded(number, low.size()) + suffix);
    }
  }
  names.insert(names.end(), expanded.begin(), expanded.end());
}

}  // namespace

std::vector<std::string> host_list_items(const std::string& list) {
  return top_level_items(list);
}

std::vector<std::string> expand_host_list(const std::string& list) {
  std::vector<std::string> names;
  for (const std::string& item : top_level_items(list)) expand_item(item, names);
  return names;
}

}  // namespace scalestudy::common
