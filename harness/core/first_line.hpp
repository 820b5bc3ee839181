// The first line of a message. LibTorch's exception messages run on with a C++ backtrace;
// their first line says what happened. Stateless.
#pragma once

#include <string>

namespace scalestudy {

inline std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace scalestudy
