#include "orchestrator/sched/render/shell_quote.hpp"

namespace scalestudy {

bool is_plain_shell_word(std::string_view word) {
  if (word.empty()) return false;
  for (char c : word) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '=' || c == '+' ||
                 c == ',' || c == '@' || c == '%';
    if (!plain) return false;
  }
  return true;
}

void append_shell_quoted(std::string& out, std::string_view word) {
  if (is_plain_shell_word(word)) {
    out.append(word);
    return;
  }
  out += '\'';
  for (char c : word) {
    if (c == '\'') {
      out.append("'\\''");
    } else {
      out += c;
    }
  }
  out += '\'';
}

std::string shell_quote(std::string_view word) {
  std::string out;
  out.reserve(word.size() + 2);
  append_shell_quoted(out, word);
  return out;
}

}  // namespace scalestudy
