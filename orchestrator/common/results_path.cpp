#include "orchestrator/common/results_path.hpp"

#include <filesystem>

namespace scalestudy::common {

namespace fs = std::filesystem;

std::string results_path(const std::string& study_db_path, const std::string& stored) {
  if (stored.empty() || fs::path(stored).is_absolute()) return stored;
  const fs::path results_dir = fs::absolute(fs::path(study_db_path)).parent_path();
  return (results_dir / stored).lexically_normal().string();
}

}  // namespace scalestudy::common
