#include "orchestrator/results/report_stragglers.hpp"

#include "orchestrator/results/prepared_queries.hpp"
#include "orchestrator/results/sqlite_number.hpp"
#include "orchestrator/results/stragglers.hpp"

namespace scalestudy::results {
namespace {

Result<bool> has_arrivals_table(sqlite::Database& study_db) {
  auto count = study_db.query_value(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'm_arrivals'");
  if (!count) return count.status();
  return *count && std::get<int64_t>(**count) > 0;
}

Status load_run(PreparedQueries& queries, const std::string& run_id, RankArrivals& arrivals,
                std::map<int, std::string>& hosts) {
  Status read = queries.for_each_row(
      "SELECT rank, global_step, arrival_unix_s FROM m_arrivals WHERE run_id = ?", {run_id},
      [&](const sqlite::Statement& row) {
        arrivals[static_cast<int>(std::get<int64_t>(row.column_value(0)))]
                [std::get<int64_t>(row.column_value(1))] = std::get<double>(row.column_value(2));
      });
  if (!read) return read;
  return queries.for_each_row("SELECT rank, host FROM m_run WHERE run_id = ?", {run_id},
                              [&](const sqlite::Statement& row) {
                                hosts[static_cast<int>(std::get<int64_t>(row.column_value(0)))] =
                                    sqlite::to_string(row.column_value(1));
                              });
}

// The run's median step time, the slowest rank's; none when no rank recorded one.
Result<std::optional<double>> slowest_step_ms(PreparedQueries& queries, const std::string& run_id) {
  std::optional<double> slowest;
  Status read = queries.for_each_row(
      "SELECT MAX(value) FROM m_summary WHERE run_id = ? AND name = 'step_ms_median'", {run_id},
      [&](const sqlite::Statement& row) { slowest = sqlite_number(row.column_value(0)); });
  if (!read) return read;
  return slowest;
}

}  // namespace

Status add_stragglers(sqlite::Database& study_db, std::vector<PointWork>& points, Report& report) {
  auto exists = has_arrivals_table(study_db);
  if (!exists) return exists.status();
  if (!*exists) return Status::ok();
  PreparedQueries queries(study_db);
  std::vector<RunStraggler> all_runs;
  std::map<std::string, std::map<int, std::string>> hosts_by_run;
  for (PointWork& work : points) {
    for (const std::string& run_id : work.point.run_ids) {
      RankArrivals arrivals;
      std::map<int, std::string>& hosts = hosts_by_run[run_id];
      if (Status loaded = load_run(queries, run_id, arrivals, hosts); !loaded) {
        return loaded.with_context("arrivals of run " + run_id);
      }
      auto straggler = attribute_straggler(run_id, arrivals, hosts);
      if (!straggler) continue;
      auto step_ms = slowest_step_ms(queries, run_id);
      if (!step_ms) return step_ms.status().with_context("median step of run " + run_id);
      straggler->step_ms_median = *step_ms;
      all_runs.push_back(*straggler);
      straggler->per_step.clear();  // the report shows the summary; the tally needed the steps
      work.point.stragglers.push_back(std::move(*straggler));
    }
  }
  report.straggler_hosts = tally_hosts(all_runs, hosts_by_run);
  return Status::ok();
}

}  // namespace scalestudy::results
