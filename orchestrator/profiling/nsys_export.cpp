#include "orchestrator/profiling/nsys_export.hpp"

#include <set>

#include "harness/core/sqlite.hpp"
#include "orchestrator/profiling/time_totals.hpp"

namespace scalestudy::profiling {

std::string memcpy_name(int copy_kind) {
  switch (copy_kind) {
    case 1:
      return "[CUDA memcpy HtoD]";
    case 2:
      return "[CUDA memcpy DtoH]";
    case 8:
      return "[CUDA memcpy DtoD]";
    case 10:
      return "[CUDA memcpy PtoP]";
    default:
      return "[CUDA memcpy kind " + std::to_string(copy_kind) + "]";
  }
}

Result<ProfileData> read_nsys_export(const std::string& path) {
  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  if (!db) return db.status();
  auto listed = db->query("SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!listed) return listed.status();
  std::set<std::string> tables;
  for (const auto& row : *listed) tables.insert(sqlite::text_of(row[0]));
  if (!tables.count("StringIds")) {
    return Status::error(path + ": not an nsys SQLite export (no StringIds table)");
  }

  ProfileData data;
  data.source = "nsys-sqlite";
  KernelTotals kernels;
  if (tables.count("CUPTI_ACTIVITY_KIND_KERNEL")) {
    auto rows = db->query(
        "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS s ON s.id = k.demangledName");
    if (!rows) return rows.status();
    for (const auto& row : *rows) kernels.add(sqlite::text_of(row[0]), sqlite::integer_of(row[1]));
  }
  if (tables.count("CUPTI_ACTIVITY_KIND_MEMCPY")) {
    auto rows = db->query("SELECT copyKind, end - start FROM CUPTI_ACTIVITY_KIND_MEMCPY");
    if (!rows) return rows.status();
    for (const auto& row : *rows) {
      kernels.add(memcpy_name(static_cast<int>(sqlite::integer_of(row[0]))),
                  sqlite::integer_of(row[1]));
    }
  }
  if (tables.count("CUPTI_ACTIVITY_KIND_MEMSET")) {
    auto rows = db->query("SELECT end - start FROM CUPTI_ACTIVITY_KIND_MEMSET");
    if (!rows) return rows.status();
    for (const auto& row : *rows) kernels.add("[CUDA memset]", sqlite::integer_of(row[0]));
  }
  data.kernels = kernels.sorted();

  if (tables.count("NVTX_EVENTS")) {
    auto rows = db->query(
        "SELECT COALESCE(d.text, ''), COALESCE(e.text, s.value, ''), e.end - e.start "
        "FROM NVTX_EVENTS AS e "
        "LEFT JOIN StringIds AS s ON s.id = e.textId "
        "LEFT JOIN NVTX_EVENTS AS d ON d.eventType = ? AND d.domainId = e.domainId "
        "WHERE e.eventType = ? AND e.end IS NOT NULL",
        {int64_t{kNvtxDomainCreateEvent}, int64_t{kNvtxPushPopRangeEvent}});
    if (!rows) return rows.status();
    RangeTotals ranges;
    for (const auto& row : *rows)
      ranges.add(sqlite::text_of(row[0]), sqlite::text_of(row[1]), sqlite::integer_of(row[2]));
    data.ranges = ranges.sorted();
  }
  return data;
}

}  // namespace scalestudy::profiling
