#include "orchestrator/results/report/report_stragglers.hpp"

#include <cstdio>

#include "orchestrator/results/analysis/stragglers.hpp"
#include "orchestrator/results/ingest/sqlite_number.hpp"
#include "orchestrator/results/query/prepared_queries.hpp"

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

// Each rank's CPU figures over its training, where it recorded them.
Result<std::vector<RankCpu>> rank_cpu(PreparedQueries& queries, const std::string& run_id) {
  std::map<int, RankCpu> by_rank;
  std::map<int, int> fields;
  Status read = queries.for_each_row(
      "SELECT s.rank, r.host, s.name, s.value FROM m_summary s JOIN m_run r "
      "ON r.run_id = s.run_id AND r.rank = s.rank WHERE s.run_id = ? AND s.name IN "
      "('host_cpu_busy_s', 'process_cpu_s', 'cpu_span_wall_s')",
      {run_id}, [&](const sqlite::Statement& row) {
        const int rank = static_cast<int>(std::get<int64_t>(row.column_value(0)));
        RankCpu& cpu = by_rank[rank];
        cpu.host = sqlite::to_string(row.column_value(1));
        const std::string name = sqlite::to_string(row.column_value(2));
        const double value = sqlite_number(row.column_value(3)).value_or(0);
        (name == "host_cpu_busy_s" ? cpu.host_busy_s
         : name == "process_cpu_s" ? cpu.process_s
                                   : cpu.span_s) = value;
        ++fields[rank];
      });
  if (!read) return read;
  std::vector<RankCpu> ranks;
  for (const auto& [rank, cpu] : by_rank) {
    if (fields[rank] == 3) ranks.push_back(cpu);
  }
  return ranks;
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
    const size_t first_run = all_runs.size();
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
      auto cpu = rank_cpu(queries, run_id);
      if (!cpu) return cpu.status().with_context("CPU time of run " + run_id);
      straggler->host_other_work_cores = other_work_cores(*cpu, straggler->host);
      if (straggler->late_beyond_chance() && straggler->host_busy()) {
        char cores[32];
        std::snprintf(cores, sizeof cores, "%.2f", *straggler->host_other_work_cores);
        report.warnings.push_back(
            "run " + run_id + ": rank " + std::to_string(straggler->rank) +
            " was last more often than chance would make it, but its host " + straggler->host +
            " also ran " + cores +
            " cores of other work while it trained: the cause may lie outside the training, "
            "so no straggler is named");
      }
      all_runs.push_back(*straggler);
      straggler->per_step.clear();  // the report shows the summary; the tallies need the steps
      work.point.stragglers.push_back(std::move(*straggler));
    }
    std::vector<const RunStraggler*> point_runs;
    for (size_t i = first_run; i < all_runs.size(); ++i) point_runs.push_back(&all_runs[i]);
    work.point.rank_arrivals = rank_arrivals(point_runs, hosts_by_run);
  }
  report.straggler_hosts = tally_hosts(all_runs, hosts_by_run);
  return Status::ok();
}

}  // namespace scalestudy::results
