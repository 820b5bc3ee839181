#include "orchestrator/study/toml_syntax.hpp"

#include <cctype>
#include <regex>
#include <string>

namespace scalestudy {
namespace {

bool is_bare_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// A recursive-descent reader that stops at the first error.
class TomlReader {
 public:
  explicit TomlReader(std::string_view text) : text_(text) {}

  Status document() {
    while (true) {
      skip_blank_lines();
      if (at_end()) return Status::ok();
      if (peek() == '[') {
        if (!table_header()) return error_;
      } else if (!key_value()) {
        return error_;
      }
      if (!line_end()) return error_;
    }
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool starts_with(std::string_view prefix) const {
    return text_.substr(pos_, prefix.size()) == prefix;
  }
  bool fail(const std::string& what) {
    error_ = Status::error("line " + std::to_string(line_) + ": " + what);
    return false;
  }
  void skip_spaces() {
    while (peek() == ' ' || peek() == '\t') ++pos_;
  }
  void skip_comment() {
    if (peek() != '#') return;
    while (!at_end() && peek() != '\n') ++pos_;
  }
  void newline() {
    ++pos_;
    ++line_;
  }
  // Spaces, comments and newlines (between statements and inside arrays).
  void skip_blank_lines() {
    while (true) {
      skip_spaces();
      skip_comment();
      if (peek() == '\r' && peek(1) == '\n') ++pos_;
      if (peek() != '\n') return;
      newline();
    }
  }
  bool line_end() {
    skip_spaces();
    skip_comment();
    if (peek() == '\r' && peek(1) == '\n') ++pos_;
    if (at_end()) return true;
    if (peek() != '\n') return fail("expected the end of the line");
    newline();
    return true;
  }

  bool table_header() {
    const bool array = starts_with("[[");
    pos_ += array ? 2 : 1;
    skip_spaces();
    if (!key()) return false;
    skip_spaces();
    if (!starts_with(array ? "]]" : "]")) return fail("expected ']' closing a table header");
    pos_ += array ? 2 : 1;
    return true;
  }

  bool key_value() {
    if (!key()) return false;
    skip_spaces();
    if (peek() != '=') return fail("expected '=' after a key");
    ++pos_;
    skip_spaces();
    return value();
  }

  bool key() {
    while (true) {
      if (peek() == '"' || peek() == '\'') {
        if (starts_with("\"\"\"") || starts_with("'''")) return fail("a key is one line");
        if (!single_line_string()) return false;
      } else {
        const size_t start = pos_;
        while (is_bare_key_char(peek())) ++pos_;
        if (pos_ == start) return fail("expected a key");
      }
      skip_spaces();
      if (peek() != '.') return true;
      ++pos_;
      skip_spaces();
    }
  }

  bool value() {
    const char c = peek();
    if (c == '"' || c == '\'') {
      return starts_with("\"\"\"") || starts_with("'''") ? multi_line_string()
                                                         : single_line_string();
    }
    if (c == '[') return array();
    if (c == '{') return inline_table();
    return scalar();
  }

  bool escape() {
    ++pos_;  // the backslash
    const char c = peek();
    if (std::string_view("btnfr\"\\").find(c) != std::string_view::npos && c != '\0') {
      ++pos_;
      return true;
    }
    if (c == 'u' || c == 'U') {
      const size_t digits = c == 'u' ? 4 : 8;
      ++pos_;
      for (size_t i = 0; i < digits; ++i, ++pos_) {
        if (!std::isxdigit(static_cast<unsigned char>(peek()))) {
          return fail("expected hex digits after \\" + std::string(1, c));
        }
      }
      return true;
    }
    return fail("unknown escape sequence in a string");
  }

  bool single_line_string() {
    const char quote = peek();
    ++pos_;
    while (true) {
      const char c = peek();
      if (at_end() || c == '\n') return fail("a string is not closed on its line");
      if (c == quote) {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
        return fail("a control character in a string");
      }
      if (c == '\\' && quote == '"') {
        if (!escape()) return false;
      } else {
        ++pos_;
      }
    }
  }

  bool multi_line_string() {
    const std::string delimiter(3, peek());
    pos_ += 3;
    while (!at_end()) {
      if (starts_with(delimiter)) {
        pos_ += 3;
        while (peek() == delimiter[0]) ++pos_;  // up to two quotes end the content
        return true;
      }
      if (peek() == '\n') {
        newline();
      } else if (peek() == '\\' && delimiter[0] == '"') {
        if (peek(1) == '\n' || peek(1) == ' ' || peek(1) == '\t' || peek(1) == '\r') {
          ++pos_;  // a line-ending backslash
        } else if (!escape()) {
          return false;
        }
      } else {
        ++pos_;
      }
    }
    return fail("a multi-line string is not closed");
  }

  bool array() {
    ++pos_;
    while (true) {
      skip_blank_lines();
      if (peek() == ']') {
        ++pos_;
        return true;
      }
      if (!value()) return false;
      skip_blank_lines();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ']') {
        return fail("expected ',' or ']' in an array");
      }
    }
  }

  bool inline_table() {
    ++pos_;
    skip_spaces();
    if (peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      skip_spaces();
      if (!key_value()) return false;
      skip_spaces();
      if (peek() == '}') {
        ++pos_;
        return true;
      }
      if (peek() != ',') return fail("expected ',' or '}' in an inline table");
      ++pos_;
    }
  }

  // A boolean, number, date or time: the characters up to the end of the value.
  bool scalar() {
    const size_t start = pos_;
    while (!at_end()) {
      const char c = peek();
      const bool date_time_space = c == ' ' && pos_ > start &&
                                   std::isdigit(static_cast<unsigned char>(peek(1))) &&
                                   std::isdigit(static_cast<unsigned char>(text_[pos_ - 1]));
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-' ||
            c == '.' || c == ':' || date_time_space)) {
        break;
      }
      ++pos_;
    }
    const std::string token(text_.substr(start, pos_ - start));
    static const std::regex kScalar(
        "true|false"
        "|[+-]?(0|[1-9](_?[0-9])*)"  // decimal integer
        "|0x[0-9A-Fa-f](_?[0-9A-Fa-f])*|0o[0-7](_?[0-7])*|0b[01](_?[01])*"
        "|[+-]?(inf|nan)"
        "|[+-]?(0|[1-9](_?[0-9])*)(\\.[0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?"  // float
        "|[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?"
        "([Zz]|[+-][0-9]{2}:[0-9]{2})?)?"            // date, date-time
        "|[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?");  // local time
    if (token.empty()) return fail("expected a value");
    if (!std::regex_match(token, kScalar)) {
      return fail("'" + token.substr(0, 40) + "' is not a TOML value (a string needs quotes)");
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  Status error_;
};

}  // namespace

Status check_toml_syntax(std::string_view text) {
  return TomlReader(text).document();
}

}  // namespace scalestudy
