#include "orchestrator/campaign/run_directory_outcome.hpp"

#include <filesystem>

#include "harness/core/run_layout.hpp"
#include "harness/core/sqlite.hpp"

namespace scalestudy::campaign {

bool run_directory_shows_completed(const std::string& out_dir, int world_size) {
  if (world_size < 1) return false;
  for (int rank = 0; rank < world_size; ++rank) {
    const std::string path = run_layout::rank_database_path(out_dir, rank);
    if (!std::filesystem::is_regular_file(path)) return false;
    auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
    if (!db) return false;
    auto status = db->query_value("SELECT status FROM run");
    if (!status || !*status || sqlite::to_string(**status) != "completed") return false;
  }
  return true;
}

}  // namespace scalestudy::campaign
