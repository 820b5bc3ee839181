#include "orchestrator/sched/render/text_template.hpp"

#include <algorithm>

namespace scalestudy {

Result<TextTemplate> TextTemplate::parse(std::string_view text,
                                         const std::vector<std::string>& names) {
  TextTemplate parsed;
  size_t pos = 0;
  int line = 1;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    std::string_view literal = text.substr(pos, open == std::string_view::npos ? open : open - pos);
    if (!literal.empty()) {
      parsed.pieces_.push_back({std::string(literal), -1});
      parsed.literal_bytes_ += literal.size();
      line += static_cast<int>(std::count(literal.begin(), literal.end(), '\n'));
    }
    if (open == std::string_view::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return Status::error("template line " + std::to_string(line) + ": unterminated '{{'");
    }
    std::string_view name = text.substr(open + 2, close - open - 2);
    auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end()) {
      return Status::error("template line " + std::to_string(line) + ": unknown placeholder {{" +
                           std::string(name) + "}}");
    }
    parsed.pieces_.push_back({{}, static_cast<int>(found - names.begin())});
    pos = close + 2;
  }
  return parsed;
}

std::string TextTemplate::render(const std::vector<std::string_view>& values) const {
  size_t size = literal_bytes_;
  for (const auto& piece : pieces_) {
    if (piece.slot >= 0) size += values[piece.slot].size();
  }
  std::string out;
  out.reserve(size);
  for (const auto& piece : pieces_) {
    if (piece.slot >= 0) {
      out.append(values[piece.slot]);
    } else {
      out.append(piece.literal);
    }
  }
  return out;
}

}  // namespace scalestudy
