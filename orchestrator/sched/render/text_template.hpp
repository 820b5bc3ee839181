// TextTemplate: a tiny `{{name}}` substitution engine for the job-script templates in
// slurm/templates/. A template is parsed once against the list of names it may use (an
// unknown name is an error at parse time) and rendered many times from values given by
// name index. Values are inserted verbatim: callers quote them first. Immutable after
// parse(); render() is thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy {

class TextTemplate {
 public:
  // `names[i]` is the placeholder render() fills from values[i].
  static Result<TextTemplate> parse(std::string_view text, const std::vector<std::string>& names);

  std::string render(const std::vector<std::string_view>& values) const;

 private:
  struct Piece {
    std::string literal;
    int slot = -1;  // >= 0: a placeholder, filled from values[slot]
  };
  std::vector<Piece> pieces_;
  size_t literal_bytes_ = 0;
};

}  // namespace scalestudy
