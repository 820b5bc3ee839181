#include "orchestrator/results/analysis/interference.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "orchestrator/common/utc_time.hpp"

namespace scalestudy::results {

std::vector<RunOverlap> find_overlaps(std::vector<RunWindow> windows) {
  std::sort(windows.begin(), windows.end(), [](const RunWindow& a, const RunWindow& b) {
    return std::tie(a.host, a.start_s, a.run_id) < std::tie(b.host, b.start_s, b.run_id);
  });
  std::vector<RunOverlap> overlaps;
  for (size_t i = 0; i < windows.size(); ++i) {
    for (size_t j = i + 1; j < windows.size() && windows[j].host == windows[i].host; ++j) {
      if (windows[j].start_s >= windows[i].end_s) break;  // sorted by start: none later either
      if (windows[j].run_id == windows[i].run_id) continue;
      const double overlap_s = std::min(windows[i].end_s, windows[j].end_s) - windows[j].start_s;
      if (overlap_s > 0) {
        overlaps.push_back({windows[i].run_id, windows[j].run_id, windows[i].host, overlap_s});
      }
    }
  }
  return overlaps;
}

Result<std::vector<RunWindow>> load_run_windows(sqlite::Database& study_db) {
  auto rows = study_db.query(
      "SELECT run_id, host, MIN(started_at), MAX(finished_at), COUNT(finished_at) = COUNT(*) "
      "FROM m_run GROUP BY run_id, host ORDER BY run_id, host");
  if (!rows) return rows.status().with_context("loading run windows");
  std::vector<RunWindow> windows;
  for (const auto& row : *rows) {
    if (sqlite::to_string(row[4]) != "1") continue;  // a rank never finished
    auto start = common::parse_utc_timestamp(sqlite::to_string(row[2]));
    auto end = common::parse_utc_timestamp(sqlite::to_string(row[3]));
    if (!start || !end) continue;
    windows.push_back({sqlite::to_string(row[0]), sqlite::to_string(row[1]), *start, *end});
  }
  return windows;
}

}  // namespace scalestudy::results
