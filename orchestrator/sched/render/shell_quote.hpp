// Shell quoting for job scripts: every value that reaches a script goes through
// shell_quote(), which wraps it in single quotes (escaping embedded ones as '\''), so no
// value — $(...), backticks, ;, &&, newlines, globs, quotes — is ever expanded, executed
// or split by the shell. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace scalestudy {

// True when `word` needs no quoting: letters, digits and _ - . / : = + , @ % only.
bool is_plain_shell_word(std::string_view word);

// `word` itself when plain (keeps scripts readable), else single-quoted.
std::string shell_quote(std::string_view word);
// Appends shell_quote(word) to `out` without a temporary.
void append_shell_quoted(std::string& out, std::string_view word);

}  // namespace scalestudy
