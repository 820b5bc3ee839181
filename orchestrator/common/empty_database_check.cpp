#include "orchestrator/common/empty_database_check.hpp"

#include <filesystem>

namespace scalestudy::common {

Status refuse_empty_database(const std::string& study_db_path) {
  std::error_code error;
  const auto size_bytes = std::filesystem::file_size(study_db_path, error);
  if (error || size_bytes > 0) return Status::ok();
  return Status::error(study_db_path +
                       ": the study database is empty (0 bytes): truncated, or not written by "
                       "scalestudy; move it aside to start the study afresh");
}

}  // namespace scalestudy::common
