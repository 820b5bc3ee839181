// SourceLocation: where a value of a study came from (file, 1-based line and column), so
// every error can say "file:line:column". The file name is shared between all locations
// of one file. Value type; immutable after construction, safe to share between threads.
#pragma once

#include <memory>
#include <string>

namespace YAML {
class Mark;
}

namespace scalestudy {

struct SourceLocation {
  std::shared_ptr<const std::string> file;
  int line = 0;    // 1-based; 0: unknown
  int column = 0;  // 1-based; 0: unknown

  // "file:line:column", or just "file" when the position is unknown.
  std::string to_string() const;
};

// yaml-cpp marks are 0-based; ours are 1-based.
SourceLocation location_from_mark(const std::shared_ptr<const std::string>& file,
                                  const YAML::Mark& mark);

}  // namespace scalestudy
