// Control bytes spelled \xNN: messages quote what a file or a peer says, and those bytes must
// never reach a terminal raw nor forge a line of a log that the failure classes read.
// Header-only, stateless.
#pragma once

#include <string>

#include "harness/core/hex.hpp"

namespace scalestudy {

inline std::string printable_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      append_hex(out, c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace scalestudy
