#include "orchestrator/results/analysis/interference.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <tuple>

namespace scalestudy::results {

std::optional<double> parse_utc_timestamp(const std::string& text) {
  std::tm utc{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  char zone = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf%c", &year, &month, &day, &hour, &minute,
                  &second, &zone) != 7 ||
      zone != 'Z') {
    return std::nullopt;
  }
  utc.tm_year = year - 1900;
  utc.tm_mon = month - 1;
  utc.tm_mday = day;
  utc.tm_hour = hour;
  utc.tm_min = minute;
  return static_cast<double>(timegm(&utc)) + second;
}

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
    auto start = parse_utc_timestamp(sqlite::to_string(row[2]));
    auto end = parse_utc_timestamp(sqlite::to_string(row[3]));
    if (!start || !end) continue;
    windows.push_back({sqlite::to_string(row[0]), sqlite::to_string(row[1]), *start, *end});
  }
  return windows;
}

}  // namespace scalestudy::results
