// An option's text read as a whole number, all of it, with the error users see for a bad
// one. Shared by the CLI's flag parser and the schedulers' own options. Header-only.
#pragma once

#include <stdexcept>
#include <string>

#include "harness/core/status.hpp"

namespace scalestudy {

// `text` as an int when it is one and nothing else; an error naming `option` otherwise.
inline Result<int> parse_whole_number(const std::string& option, const std::string& text) {
  try {
    size_t used = 0;
    const int parsed = std::stoi(text, &used);
    if (used == text.size()) return parsed;
  } catch (const std::exception&) {
  }
  return Status::error(option + " takes a whole number, got '" + text + "'");
}

}  // namespace scalestudy
