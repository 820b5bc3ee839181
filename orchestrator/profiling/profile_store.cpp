#include "orchestrator/profiling/profile_store.hpp"

#include <algorithm>
#include <map>

namespace scalestudy::profiling {
namespace {

using sqlite::Value;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS p_kernels (
  run_id      TEXT NOT NULL,
  rank        INTEGER NOT NULL,
  source      TEXT NOT NULL,
  kernel_name TEXT NOT NULL,
  category    TEXT NOT NULL,
  total_ns    INTEGER NOT NULL,
  instances   INTEGER NOT NULL,
  PRIMARY KEY (run_id, rank, source, kernel_name)
);
CREATE TABLE IF NOT EXISTS p_nvtx (
  run_id     TEXT NOT NULL,
  rank       INTEGER NOT NULL,
  source     TEXT NOT NULL,
  domain     TEXT NOT NULL,
  range_name TEXT NOT NULL,
  total_ns   INTEGER NOT NULL,
  instances  INTEGER NOT NULL,
  min_ns     INTEGER NOT NULL,
  max_ns     INTEGER NOT NULL,
  PRIMARY KEY (run_id, rank, source, domain, range_name)
);
)sql";

KernelCategory category_named(const std::string& name) {
  for (KernelCategory category : all_categories()) {
    if (name == category_name(category)) return category;
  }
  return KernelCategory::kOther;
}

}  // namespace

Status create_profile_tables(sqlite::Database& db) {
  return sqlite::in_transaction(db, [&] { return db.exec(kSchema); });
}

Status store_profile(sqlite::Database& db, const std::string& run_id, int rank,
                     const ProfileData& data) {
  if (Status created = create_profile_tables(db); !created) return created;
  Status stored = sqlite::in_transaction(db, [&]() -> Status {
    for (const char* table : {"p_kernels", "p_nvtx"}) {
      auto cleared = db.query(
          std::string("DELETE FROM ") + table + " WHERE run_id = ? AND rank = ? AND source = ?",
          {run_id, int64_t{rank}, data.source});
      if (!cleared) return cleared.status();
    }
    auto kernel = db.prepare(
        "INSERT INTO p_kernels(run_id, rank, source, kernel_name, category, total_ns, instances) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
        "total_ns = total_ns + excluded.total_ns, instances = instances + excluded.instances");
    if (!kernel) return kernel.status();
    for (const KernelTime& row : data.kernels) {
      kernel->reset();
      kernel->bind(1, run_id)
          .bind(2, rank)
          .bind(3, data.source)
          .bind(4, row.name)
          .bind(5, category_name(row.category))
          .bind(6, row.total_ns)
          .bind(7, row.instances);
      if (Status inserted = kernel->run(); !inserted) return inserted;
    }
    auto range = db.prepare(
        "INSERT INTO p_nvtx(run_id, rank, source, domain, range_name, total_ns, instances, "
        "min_ns, max_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!range) return range.status();
    for (const RangeTime& row : data.ranges) {
      range->reset();
      range->bind(1, run_id)
          .bind(2, rank)
          .bind(3, data.source)
          .bind(4, row.domain)
          .bind(5, row.name)
          .bind(6, row.total_ns)
          .bind(7, row.instances)
          .bind(8, row.min_ns)
          .bind(9, row.max_ns);
      if (Status inserted = range->run(); !inserted) return inserted;
    }
    return Status::ok();
  });
  return stored.with_context("storing the " + data.source + " profile of run " + run_id + " rank " +
                             std::to_string(rank));
}

Result<std::vector<StoredProfile>> load_profiles(sqlite::Database& db, const std::string& run_id) {
  if (Status created = create_profile_tables(db); !created) return created;
  const std::string filter = run_id.empty() ? "" : " WHERE run_id = ?";
  std::vector<Value> params;
  if (!run_id.empty()) params.push_back(run_id);
  std::map<std::pair<std::string, std::string>, StoredProfile> profiles;
  auto profile = [&](const Value& run, const Value& source) -> StoredProfile& {
    StoredProfile& found = profiles[{sqlite::text_of(run), sqlite::text_of(source)}];
    if (found.categories.empty()) {
      found.run_id = sqlite::text_of(run);
      found.source = sqlite::text_of(source);
      for (KernelCategory category : all_categories()) found.categories.push_back({category, 0});
    }
    return found;
  };
  auto ranks = db.query(
      "SELECT run_id, source, COUNT(DISTINCT rank) FROM (SELECT run_id, source, rank FROM "
      "p_kernels" +
          filter + " UNION SELECT run_id, source, rank FROM p_nvtx" + filter +
          ") GROUP BY run_id, source",
      run_id.empty() ? params : std::vector<Value>{run_id, run_id});
  if (!ranks) return ranks.status();
  for (const auto& row : *ranks)
    profile(row[0], row[1]).ranks = static_cast<int>(sqlite::integer_of(row[2]));

  auto categories = db.query("SELECT run_id, source, category, SUM(total_ns) FROM p_kernels" +
                                 filter + " GROUP BY run_id, source, category",
                             params);
  if (!categories) return categories.status();
  for (const auto& row : *categories) {
    StoredProfile& found = profile(row[0], row[1]);
    KernelCategory category = category_named(sqlite::text_of(row[2]));
    for (CategoryTime& time : found.categories) {
      if (time.category == category) time.total_ns += sqlite::integer_of(row[3]);
    }
  }
  auto ranges = db.query(
      "SELECT run_id, source, domain, range_name, SUM(total_ns), SUM(instances), MIN(min_ns), "
      "MAX(max_ns) FROM p_nvtx" +
          filter + " GROUP BY run_id, source, domain, range_name ORDER BY SUM(total_ns) DESC",
      params);
  if (!ranges) return ranges.status();
  for (const auto& row : *ranges) {
    RangeTime range;
    range.domain = sqlite::text_of(row[2]);
    range.name = sqlite::text_of(row[3]);
    range.total_ns = sqlite::integer_of(row[4]);
    range.instances = sqlite::integer_of(row[5]);
    range.min_ns = sqlite::integer_of(row[6]);
    range.max_ns = sqlite::integer_of(row[7]);
    profile(row[0], row[1]).ranges.push_back(std::move(range));
  }
  std::vector<StoredProfile> result;
  for (auto& [key, found] : profiles) result.push_back(std::move(found));
  return result;
}

}  // namespace scalestudy::profiling
