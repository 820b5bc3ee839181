#include "orchestrator/results/report/run_measurements.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "orchestrator/results/analysis/statistics.hpp"
#include "orchestrator/results/ingest/measurement_schema.hpp"
#include "orchestrator/results/ingest/rank_database.hpp"
#include "orchestrator/results/ingest/sqlite_number.hpp"
#include "orchestrator/results/query/prepared_queries.hpp"
#include "orchestrator/study/metric_spec.hpp"

namespace scalestudy::results {
namespace {

int as_int(const sqlite::Value& value) {
  return static_cast<int>(as_double(value));
}

std::optional<double> as_optional(const sqlite::Value& value) {
  if (std::holds_alternative<std::monostate>(value)) return std::nullopt;
  return as_double(value);
}

// varied_json values may be strings or numbers; both become their text.
std::map<std::string, std::string> parse_string_map(const std::string& json_text) {
  std::map<std::string, std::string> varied;
  auto json = nlohmann::json::parse(json_text, nullptr, false);
  if (!json.is_object()) return varied;
  for (const auto& [key, value] : json.items()) {
    varied[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return varied;
}

Result<bool> table_exists(sqlite::Database& db, const std::string& table) {
  auto count = db.query_value(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", {table});
  if (!count) return count.status();
  return *count && as_int(**count) > 0;
}

Status load_summary(PreparedQueries& queries, RunMeasurement& run) {
  std::map<std::string, std::vector<double>> by_name;  // values in rank order
  Status read = queries.for_each_row(
      "SELECT name, rank, value FROM m_summary WHERE run_id = ? ORDER BY rank", {run.run_id},
      [&](const sqlite::Statement& row) {
        by_name[sqlite::to_string(row.column_value(0))].push_back(as_double(row.column_value(2)));
      });
  if (!read) return read;
  auto first = [&](const char* name) -> std::optional<double> {
    auto it = by_name.find(name);
    return it == by_name.end() ? std::nullopt : std::optional<double>(it->second.front());
  };
  auto largest = [&](const char* name) -> std::optional<double> {
    auto it = by_name.find(name);
    if (it == by_name.end()) return std::nullopt;
    return *std::max_element(it->second.begin(), it->second.end());
  };
  auto average = [&](const char* name) -> std::optional<double> {
    auto it = by_name.find(name);
    return it == by_name.end() ? std::nullopt : std::optional<double>(mean(it->second));
  };
  run.samples_per_s = first("samples_per_s").value_or(0);
  if (auto it = by_name.find("step_ms_median"); it != by_name.end()) {
    run.step_ms_median = median(it->second);
  }
  run.final_val_acc = first("final_val_acc");
  run.gpu_mem_peak_bytes = largest("gpu_mem_peak_bytes");
  run.gpu_mem_reserved_peak_bytes = largest("gpu_mem_reserved_peak_bytes");
  run.gpu_mem_avg_bytes = average("gpu_mem_avg_bytes");
  run.gpu_mem_mode_bytes = largest("gpu_mem_mode_bytes");
  run.cpu_rss_peak_bytes = largest("cpu_rss_peak_bytes");
  run.optimizer_state_bytes = largest("optimizer_state_bytes");
  run.tokens_per_sample = first("tokens_per_sample");
  run.gradient_bytes = first("gradient_bytes");
  run.bucket_cap_mb = first("bucket_cap_mb");
  for (const char* metric : {"val_accuracy", "val_loss"}) {
    if (auto target = first(("target_" + std::string(metric)).c_str())) {
      run.target_metric = metric;
      run.target_value = target;
    }
  }
  run.time_to_target_s = first("time_to_target_s");
  if (auto epoch = first("time_to_target_epoch")) {
    run.time_to_target_epoch = static_cast<int>(*epoch);
  }
  if (auto global = first("global_batch")) run.recorded_global_batch = static_cast<int>(*global);
  if (auto per_rank = first("per_rank_batch")) {
    run.recorded_per_rank_batch = static_cast<int>(*per_rank);
  }
  return Status::ok();
}

Status load_phases(PreparedQueries& queries, RunMeasurement& run) {
  Status read = queries.for_each_row(
      "SELECT phase, avg(mean_ms) FROM m_phases WHERE run_id = ? GROUP BY phase", {run.run_id},
      [&](const sqlite::Statement& row) {
        const std::string phase = sqlite::to_string(row.column_value(0));
        const double mean_ms = as_double(row.column_value(1));
        if (phase == "data") run.phases.data_ms = mean_ms;
        if (phase == "forward") run.phases.forward_ms = mean_ms;
        if (phase == "backward") run.phases.backward_ms = mean_ms;
        if (phase == "comm_exposed") run.phases.comm_exposed_ms = mean_ms;
        if (phase == "optimizer") run.phases.optimizer_ms = mean_ms;
        if (phase == "step") run.phases.step_ms = mean_ms;
      });
  if (!read || run.step_ms_median != 0) return read;
  std::vector<double> values;
  read = queries.for_each_row(
      "SELECT median_ms FROM m_phases WHERE run_id = ? AND phase = 'step'", {run.run_id},
      [&](const sqlite::Statement& row) { values.push_back(as_double(row.column_value(0))); });
  if (!read) return read;
  run.step_ms_median = median(values);
  return Status::ok();
}

Status load_epochs(PreparedQueries& queries, RunMeasurement& run) {
  std::vector<double> epoch_throughputs;
  Status read = queries.for_each_row(
      "SELECT epoch_s, val_acc, samples_per_s, val_loss FROM m_epochs WHERE run_id = ?1 AND "
      "rank = (SELECT min(rank) FROM m_epochs WHERE run_id = ?1) ORDER BY epoch",
      {run.run_id}, [&](const sqlite::Statement& row) {
        run.epoch_s_per_epoch.push_back(as_double(row.column_value(0)));
        run.val_acc_per_epoch.push_back(as_optional(row.column_value(1)));
        epoch_throughputs.push_back(as_double(row.column_value(2)));
        run.val_loss_per_epoch.push_back(as_optional(row.column_value(3)));
      });
  if (!read) return read;
  run.epoch_s = median(run.epoch_s_per_epoch);
  if (run.samples_per_s == 0) run.samples_per_s = median(epoch_throughputs);
  if (!run.final_val_acc && !run.val_acc_per_epoch.empty()) {
    run.final_val_acc = run.val_acc_per_epoch.back();
  }
  return Status::ok();
}

Status load_identity(PreparedQueries& queries, RunMeasurement& run) {
  auto workload = queries.value("SELECT workload FROM m_run WHERE run_id = ? ORDER BY rank LIMIT 1",
                                {run.run_id});
  if (!workload) return workload.status();
  if (*workload) run.workload = sqlite::to_string(**workload);
  auto commit = queries.value(
      "SELECT value FROM m_provenance WHERE run_id = ? AND key = 'git_commit' ORDER BY rank LIMIT "
      "1",
      {run.run_id});
  if (!commit) return commit.status();
  if (*commit) run.git_commit = sqlite::to_string(**commit);
  return Status::ok();
}

// Only where the ranks recorded themselves; the run keeps its planned GPUs otherwise.
Status load_device(PreparedQueries& queries, RunMeasurement& run) {
  auto recorded = load_run_device(queries, run.run_id);
  if (!recorded) return recorded.status();
  if (!recorded->device.empty()) run.device = std::move(*recorded);
  return Status::ok();
}

// The telemetry samples' peaks: NVML's device memory in use, and the host RSS where the
// summary gave none.
Status load_telemetry_peaks(PreparedQueries& queries, RunMeasurement& run) {
  return queries.for_each_row(
      "SELECT max(cpu_rss_bytes), max(gpu_mem_used_bytes) FROM m_telemetry WHERE run_id = ?",
      {run.run_id}, [&](const sqlite::Statement& row) {
        if (!run.cpu_rss_peak_bytes) run.cpu_rss_peak_bytes = as_optional(row.column_value(0));
        run.nvml_peak_bytes = as_optional(row.column_value(1));
      });
}

// Each rank's energy rows combined (analysis/energy.hpp); none where the ranks wrote none.
Status load_energy(PreparedQueries& queries, RunMeasurement& run) {
  std::vector<RankEnergy> ranks;
  Status read = queries.for_each_row(
      "SELECT e.rank, r.device, sum(e.samples), sum(e.measured_s), "
      "CASE WHEN count(e.energy_j) = count(*) THEN sum(e.energy_j) END, max(e.peak_power_w), "
      "max(e.sm_clock_max_mhz), min(e.sm_clock_min_mhz), group_concat(e.clock_events, ', '), "
      "max(e.unavailable) FROM m_energy e JOIN m_run r ON r.run_id = e.run_id AND r.rank = "
      "e.rank WHERE e.run_id = ? GROUP BY e.rank ORDER BY e.rank",
      {run.run_id}, [&](const sqlite::Statement& row) {
        RankEnergy rank;
        rank.rank = as_int(row.column_value(0));
        rank.device = sqlite::to_string(row.column_value(1));
        rank.samples = static_cast<int64_t>(as_double(row.column_value(2)));
        rank.measured_s = as_double(row.column_value(3));
        rank.energy_j = as_optional(row.column_value(4));
        rank.peak_power_w = as_optional(row.column_value(5));
        rank.sm_clock_max_mhz = as_optional(row.column_value(6));
        rank.sm_clock_min_mhz = as_optional(row.column_value(7));
        rank.clock_events = merge_names(sqlite::to_string(row.column_value(8)));
        rank.unavailable = sqlite::to_string(row.column_value(9));
        ranks.push_back(std::move(rank));
      });
  if (!read) return read;
  if (!ranks.empty()) run.energy = combine_rank_energy(std::move(ranks));
  return Status::ok();
}

// A time in `unit` (ms when unknown) in milliseconds.
double to_ms(double value, const std::string& unit) {
  if (unit == "s" || unit == "sec") return value * 1000;
  if (unit == "us" || unit == "µs") return value / 1000;
  if (unit == "min") return value * 60000;
  return value;
}

// A memory figure in `unit` (bytes when unknown) in bytes.
double to_bytes(double value, const std::string& unit) {
  const std::map<std::string, double> factors = {{"KiB", 1024.0},       {"MiB", 1048576.0},
                                                 {"GiB", 1073741824.0}, {"KB", 1e3},
                                                 {"MB", 1e6},           {"GB", 1e9}};
  auto factor = factors.find(unit);
  return factor == factors.end() ? value : value * factor->second;
}

// Fills the measurement a metric's role stands for, where the run database gave none.
void fill_from_role(MetricRole role, double value, const std::string& unit, RunMeasurement& run) {
  switch (role) {
    case MetricRole::kNone:
      return;
    case MetricRole::kLoss:
      return;  // a run's loss is shown as printed; no measurement of the report stands for it
    case MetricRole::kThroughput:
      if (run.samples_per_s == 0) run.samples_per_s = value;
      return;
    case MetricRole::kStepTime:
      if (run.step_ms_median == 0) run.step_ms_median = to_ms(value, unit);
      return;
    case MetricRole::kEpochTime:
      if (run.epoch_s == 0) run.epoch_s = to_ms(value, unit) / 1000;
      return;
    case MetricRole::kValAccuracy:
      if (!run.final_val_acc) run.final_val_acc = unit == "%" ? value / 100 : value;
      return;
    case MetricRole::kMemory: {
      auto& field = run.device.gpus > 0 ? run.gpu_mem_peak_bytes : run.cpu_rss_peak_bytes;
      if (!field) field = to_bytes(value, unit);
      return;
    }
  }
}

// Only where the study database has m_output_metrics (older ones do not).
Status load_output_metrics(PreparedQueries& queries, RunMeasurement& run) {
  return queries.for_each_row(
      "SELECT name, unit, role, value FROM m_output_metrics WHERE run_id = ?", {run.run_id},
      [&](const sqlite::Statement& row) {
        const std::string unit = sqlite::to_string(row.column_value(1));
        const double value = as_double(row.column_value(3));
        run.output_metrics[sqlite::to_string(row.column_value(0))] = {value, unit};
        // A role this build does not know (a newer database's) leaves the metric shown only.
        if (auto role = parse_metric_role(sqlite::to_string(row.column_value(2)))) {
          fill_from_role(*role, value, unit, run);
        }
      });
}

// A program that prints its step time but no throughput trains global_batch samples a step.
void settle_throughput(RunMeasurement& run) {
  using Throughput = RunMeasurement::Throughput;
  if (run.samples_per_s > 0) {
    run.throughput = Throughput::kMeasured;
  } else if (run.step_ms_median > 0 && run.global_batch > 0) {
    run.samples_per_s = run.global_batch * 1000.0 / run.step_ms_median;
    run.throughput = Throughput::kFromStepTime;
  } else {
    run.samples_per_s = 0;
    run.throughput = Throughput::kNone;
  }
}

BandwidthCurve curve_from_rows(const std::string& source, int world_size, const Rows& rows) {
  std::map<int64_t, std::vector<double>> by_bytes;  // repeated sizes: their median
  for (const auto& row : rows) {
    by_bytes[static_cast<int64_t>(as_double(row[0]))].push_back(as_double(row[1]));
  }
  BandwidthCurve curve{source, world_size, {}, 0};
  for (const auto& [bytes, values] : by_bytes) curve.points.push_back({bytes, median(values)});
  return curve;
}

Result<std::vector<RunMeasurement>> load_runs(sqlite::Database& study_db) {
  auto ingested_table = table_exists(study_db, "m_ingest");
  if (!ingested_table) return ingested_table.status();
  const std::string ingest_join = *ingested_table
                                      ? "LEFT JOIN m_ingest i ON i.run_id = r.run_id"
                                      : "LEFT JOIN (SELECT NULL AS run_id, NULL AS status) i ON 0";
  auto output_metrics_table = table_exists(study_db, "m_output_metrics");
  if (!output_metrics_table) return output_metrics_table.status();
  auto current = current_runs_condition(study_db);
  if (!current) return current.status();
  auto rows = study_db.query(
      "SELECT r.run_id, r.repeat, r.nodes, r.tasks_per_node, r.world_size, r.gpus_per_node, "
      "r.global_batch, r.per_gpu_batch, r.varied_json, r.profiled, r.state, r.job_id, r.reason, "
      "i.status, r.params_json FROM runs r " +
      ingest_join + " WHERE " + *current + " ORDER BY r.rowid");
  if (!rows) return rows.status();
  using Loader = Status (*)(PreparedQueries&, RunMeasurement&);
  std::vector<Loader> loaders = {load_summary,  load_phases,          load_epochs,
                                 load_identity, load_telemetry_peaks, load_device};
  if (*output_metrics_table) loaders.push_back(load_output_metrics);
  auto energy_table = table_exists(study_db, "m_energy");
  if (!energy_table) return energy_table.status();
  if (*energy_table) loaders.push_back(load_energy);
  PreparedQueries queries(study_db);
  std::vector<RunMeasurement> runs;
  for (const auto& row : *rows) {
    RunMeasurement run;
    run.run_id = sqlite::to_string(row[0]);
    run.repeat = as_int(row[1]);
    run.nodes = as_int(row[2]);
    run.tasks_per_node = as_int(row[3]);
    run.world_size = as_int(row[4]);
    run.gpus_per_node = as_int(row[5]);
    run.global_batch = as_int(row[6]);
    run.per_gpu_batch = as_int(row[7]);
    run.varied = parse_string_map(sqlite::to_string(row[8]));
    run.profiled = as_int(row[9]) != 0;
    run.state = sqlite::to_string(row[10]);
    run.job_id = sqlite::to_string(row[11]);
    run.reason = sqlite::to_string(row[12]);
    run.measured = sqlite::to_string(row[13]) == "ingested";
    run.params = parse_string_map(sqlite::to_string(row[14]));
    run.device.gpus = run.gpus_per_node > 0 ? run.world_size : 0;  // until it recorded its own
    if (run.measured) {
      for (Loader load : loaders) {
        if (Status status = load(queries, run); !status) {
          return status.with_context("run " + run.run_id);
        }
      }
      settle_throughput(run);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace

PhaseShares PhaseTimes::shares() const {
  if (step_ms <= 0) return {};
  return {data_ms / step_ms * 100, (forward_ms + backward_ms) / step_ms * 100,
          comm_exposed_ms / step_ms * 100, optimizer_ms / step_ms * 100};
}

Result<StudyInfo> load_study_info(sqlite::Database& study_db) {
  auto rows =
      study_db.query("SELECT name, kind, source_path, baseline_json, report_json FROM study");
  if (!rows) return rows.status().with_context("reading the study table");
  if (rows->size() != 1) {
    return Status::error(study_db.path() + ": table study has " + std::to_string(rows->size()) +
                         " rows, expected 1");
  }
  const auto& row = rows->front();
  return StudyInfo{sqlite::to_string(row[0]), sqlite::to_string(row[1]), sqlite::to_string(row[2]),
                   sqlite::to_string(row[3]), sqlite::to_string(row[4])};
}

Result<std::vector<RunMeasurement>> load_run_measurements(sqlite::Database& study_db) {
  // One read transaction: every query sees the same snapshot, and the file is locked once
  // rather than once per query (a third of the loading time). A savepoint, so a caller's
  // own transaction stays as it is.
  if (Status begun = study_db.exec("SAVEPOINT load_run_measurements"); !begun) return begun;
  auto runs = load_runs(study_db);
  Status released = study_db.exec("RELEASE load_run_measurements");
  if (runs && !released) return released;
  return runs;
}

Result<std::vector<BandwidthCurve>> load_bandwidth_curves(sqlite::Database& study_db) {
  auto has_collectives = table_exists(study_db, "m_collectives");
  if (!has_collectives) return has_collectives.status();
  std::vector<BandwidthCurve> curves;
  if (!*has_collectives) return curves;
  auto runs = study_db.query(
      "SELECT DISTINCT c.run_id, m.world_size, "
      "(SELECT COUNT(DISTINCT h.host) FROM m_run h WHERE h.run_id = c.run_id) "
      "FROM m_collectives c JOIN m_run m "
      "ON m.run_id = c.run_id AND m.rank = c.rank WHERE c.op = 'allreduce' AND c.rank = 0 "
      "ORDER BY c.run_id");
  if (!runs) return runs.status();
  for (const auto& run : *runs) {
    const std::string run_id = sqlite::to_string(run[0]);
    auto rows = study_db.query(
        "SELECT bytes, busbw_gbps FROM m_collectives WHERE run_id = ? AND rank = 0 AND op = "
        "'allreduce'",
        {run_id});
    if (!rows) return rows.status();
    curves.push_back(curve_from_rows(run_id, as_int(run[1]), *rows));
    curves.back().hosts = as_int(run[2]);
  }
  return curves;
}

Result<std::vector<BandwidthCurve>> load_comm_model_curves(const std::string& database_path) {
  auto db = sqlite::Database::open(database_path, sqlite::OpenMode::kReadOnly);
  if (!db) return db.status();
  auto is_run_database = table_exists(*db, "run");  // a study database has `runs` instead
  if (!is_run_database) return is_run_database.status();
  std::vector<BandwidthCurve> curves;
  if (*is_run_database) {
    auto data = read_rank_database(database_path);
    if (!data) return data.status();
    Rows rows;
    // collectives columns: op, bytes, dtype, iterations, time_us, algbw_gbps, busbw_gbps
    for (const auto& row : data->tables.at("collectives")) {
      if (sqlite::to_string(row[0]) == "allreduce") rows.push_back({row[1], row[6]});
    }
    if (!rows.empty()) curves.push_back(curve_from_rows(database_path, data->world_size, rows));
  } else {
    auto loaded = load_bandwidth_curves(*db);
    if (!loaded) return loaded.status();
    curves = std::move(*loaded);
  }
  if (curves.empty()) {
    return Status::error(database_path +
                         ": no all-reduce results (a study's runs count once ingested)");
  }
  return curves;
}

}  // namespace scalestudy::results
