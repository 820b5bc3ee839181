// `${name}` references inside study values: finding them and substituting them. "$${"
// stands for a literal "${". The caller decides what a name means (see expansion.cpp);
// this file only scans text. Pure functions; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy {

// True when `text` holds "${" or the "$${" escape, i.e. needs substitute_references().
inline bool has_reference(std::string_view text) {
  return text.find("${") != std::string_view::npos;
}

// Replaces each ${name} by lookup(name). An error from lookup, an empty name or an
// unterminated "${" is returned as the error.
Result<std::string> substitute_references(
    std::string_view text, const std::function<Result<std::string>(const std::string&)>& lookup);

// The names `text` references, in order (with repeats); an error for malformed text.
Result<std::vector<std::string>> referenced_names(std::string_view text);

}  // namespace scalestudy
