#include "orchestrator/study/source_location.hpp"

#include <yaml-cpp/mark.h>

namespace scalestudy {

std::string SourceLocation::to_string() const {
  std::string text = file ? *file : std::string("<unknown>");
  if (line > 0) text += ":" + std::to_string(line) + ":" + std::to_string(column);
  return text;
}

SourceLocation location_from_mark(const std::shared_ptr<const std::string>& file,
                                  const YAML::Mark& mark) {
  SourceLocation location;
  location.file = file;
  if (!mark.is_null()) {
    location.line = mark.line + 1;
    location.column = mark.column + 1;
  }
  return location;
}

}  // namespace scalestudy
