#include "orchestrator/study/json_path.hpp"

#include <charconv>

namespace scalestudy {

Result<std::vector<JsonPathStep>> parse_json_path(std::string_view text) {
  std::vector<JsonPathStep> path;
  size_t at = 0;
  auto error = [&](const std::string& what) {
    return Status::error("JSON path '" + std::string(text) + "': " + what + " at character " +
                         std::to_string(at + 1));
  };
  if (text.empty()) return Status::error("JSON path is empty");
  bool expect_key = text[0] != '[';
  while (at < text.size()) {
    if (text[at] == '[') {
      const size_t close = text.find(']', at);
      if (close == std::string_view::npos) return error("'[' without ']'");
      JsonPathStep step;
      const char* first = text.data() + at + 1;
      const char* last = text.data() + close;
      auto [end, problem] = std::from_chars(first, last, step.index);
      if (problem != std::errc() || end != last || first == last) {
        return error("expected a whole number between [ and ]");
      }
      path.push_back(step);
      at = close + 1;
      if (at < text.size() && text[at] != '[' && text[at] != '.') {
        return error("expected '.' or '[' after ']'");
      }
      if (at < text.size() && text[at] == '.') {
        ++at;
        expect_key = true;
        if (at == text.size()) return error("a key is missing");
      }
      continue;
    }
    if (!expect_key) return error("expected '.' or '['");
    const size_t stop = text.find_first_of(".[]", at);
    const size_t end = stop == std::string_view::npos ? text.size() : stop;
    if (end == at) return error("a key is missing");
    path.push_back({std::string(text.substr(at, end - at)), 0});
    at = end;
    if (at < text.size() && text[at] == ']') return error("']' without '['");
    if (at < text.size() && text[at] == '.') {
      ++at;
      if (at == text.size()) return error("a key is missing");
    } else {
      expect_key = false;
    }
  }
  return path;
}

const nlohmann::json* follow_json_path(const nlohmann::json& document,
                                       const std::vector<JsonPathStep>& path) {
  const nlohmann::json* node = &document;
  for (const JsonPathStep& step : path) {
    if (!step.key.empty()) {
      if (!node->is_object()) return nullptr;
      auto member = node->find(step.key);
      if (member == node->end()) return nullptr;
      node = &*member;
      continue;
    }
    if (!node->is_array()) return nullptr;
    const long long size = static_cast<long long>(node->size());
    const long long index = step.index < 0 ? size + step.index : step.index;
    if (index < 0 || index >= size) return nullptr;
    node = &(*node)[static_cast<size_t>(index)];
  }
  return node;
}

}  // namespace scalestudy
