#include "orchestrator/study/references.hpp"

namespace scalestudy {
namespace {

// Calls on_text for literal pieces and on_name for each reference, in order.
template <typename OnText, typename OnName>
Status scan(std::string_view text, OnText on_text, OnName on_name) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t dollar = text.find('$', pos);
    if (dollar == std::string_view::npos) break;
    if (text.substr(dollar, 3) == "$${") {
      on_text(text.substr(pos, dollar - pos));
      on_text("${");
      pos = dollar + 3;
      continue;
    }
    if (text.substr(dollar, 2) != "${") {
      on_text(text.substr(pos, dollar + 1 - pos));
      pos = dollar + 1;
      continue;
    }
    size_t close = text.find('}', dollar + 2);
    if (close == std::string_view::npos) {
      return Status::error("unterminated '${' (write '$${' for a literal '${')");
    }
    std::string name(text.substr(dollar + 2, close - dollar - 2));
    if (name.empty()) return Status::error("empty reference '${}'");
    on_text(text.substr(pos, dollar - pos));
    if (Status status = on_name(name); !status) return status;
    pos = close + 1;
  }
  on_text(text.substr(pos));
  return Status::ok();
}

}  // namespace

Result<std::string> substitute_references(
    std::string_view text, const std::function<Result<std::string>(const std::string&)>& lookup) {
  std::string out;
  out.reserve(text.size() + 16);
  Status status = scan(
      text, [&](std::string_view piece) { out.append(piece); },
      [&](const std::string& name) {
        Result<std::string> value = lookup(name);
        if (!value) return value.status();
        out += *value;
        return Status::ok();
      });
  if (!status) return status;
  return out;
}

Result<std::vector<std::string>> referenced_names(std::string_view text) {
  std::vector<std::string> names;
  Status status = scan(
      text, [](std::string_view) {},
      [&](const std::string& name) {
        names.push_back(name);
        return Status::ok();
      });
  if (!status) return status;
  return names;
}

}  // namespace scalestudy
