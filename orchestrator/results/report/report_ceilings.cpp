#include "orchestrator/results/report/report_ceilings.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "orchestrator/results/analysis/ceilings.hpp"
#include "orchestrator/results/ingest/sqlite_number.hpp"
#include "orchestrator/results/query/prepared_queries.hpp"

namespace scalestudy::results {
namespace {

// The named summary values of every rank, by name.
using RankValues = std::map<std::string, std::vector<double>>;

std::optional<double> reduced(const RankValues& values, const char* name, bool largest) {
  auto found = values.find(name);
  if (found == values.end() || found->second.empty()) return std::nullopt;
  return largest ? *std::max_element(found->second.begin(), found->second.end())
                 : *std::min_element(found->second.begin(), found->second.end());
}

std::string precision_of(const std::string& config_json) {
  auto config = nlohmann::json::parse(config_json, nullptr, false);
  if (config.is_object() && config.contains("precision") && config["precision"].is_string()) {
    return config["precision"].get<std::string>();
  }
  return "fp32";
}

// The peak the run's system states at the run's precision (runs.spec_json, "system").
void set_system_peak(const std::string& spec_json, RunCeilings& run) {
  auto spec = nlohmann::json::parse(spec_json, nullptr, false);
  if (!spec.is_object() || !spec.contains("system") || !spec["system"].is_object()) return;
  const nlohmann::json& system = spec["system"];
  const nlohmann::json peaks = system.value("peak_tflops", nlohmann::json::object());
  if (!peaks.is_object() || !peaks.contains(run.precision) || !peaks[run.precision].is_number()) {
    return;
  }
  run.system_peak_tflops = peaks[run.precision].get<double>();
  run.system = system.value("label", "");
  const nlohmann::json node = system.value("node", nlohmann::json::object());
  if (node.is_object() && node.value("gpu_model", nlohmann::json()).is_string()) {
    run.system_gpu_model = node["gpu_model"].get<std::string>();
  }
}

Result<RunCeilings> load_run(PreparedQueries& queries, const RunMeasurement& measured,
                             int world_size) {
  const std::string& run_id = measured.run_id;
  RankValues values;
  Status read = queries.for_each_row(
      "SELECT name, value FROM m_summary WHERE run_id = ? AND name IN ('ceiling_gemm_tflops', "
      "'ceiling_allreduce_busbw_gbps', 'allreduce_span_ms_median', 'calibration_s', "
      "'gradient_bytes', 'forward_flops', 'train_flops_per_sample', 'samples_per_s')",
      {run_id}, [&](const sqlite::Statement& row) {
        values[sqlite::to_string(row.column_value(0))].push_back(as_double(row.column_value(1)));
      });
  if (!read) return read;
  RunCeilings run;
  run.world_size = world_size;
  run.samples_per_s = reduced(values, "samples_per_s", true).value_or(0);
  run.forward_flops = reduced(values, "forward_flops", true);
  run.train_flops_per_sample = reduced(values, "train_flops_per_sample", true);
  run.gemm_tflops = reduced(values, "ceiling_gemm_tflops", false);  // the slowest device
  run.allreduce_busbw_gbps = reduced(values, "ceiling_allreduce_busbw_gbps", false);
  run.allreduce_span_ms = reduced(values, "allreduce_span_ms_median", false);  // least waiting
  run.gradient_bytes = reduced(values, "gradient_bytes", true);
  run.calibration_s = reduced(values, "calibration_s", true);
  run.gpu_model = measured.device.gpu_model;
  auto config =
      queries.value("SELECT config_json FROM m_run WHERE run_id = ? AND rank = 0", {run_id});
  if (!config) return config.status();
  run.precision = precision_of(*config ? sqlite::to_string(**config) : "");
  auto spec = queries.value("SELECT spec_json FROM runs WHERE run_id = ?", {run_id});
  if (!spec) return spec.status();
  if (*spec) set_system_peak(sqlite::to_string(**spec), run);
  auto run_s =
      queries.value("SELECT sum(epoch_s) FROM m_epochs WHERE run_id = ? AND rank = 0", {run_id});
  if (!run_s) return run_s.status();
  run.run_s = *run_s ? as_double(**run_s) : 0;
  return run;
}

}  // namespace

Status add_ceilings(sqlite::Database& study_db, std::vector<PointWork>& points) {
  PreparedQueries queries(study_db);
  for (PointWork& work : points) {
    std::vector<RunCeilings> runs;
    for (const RunMeasurement* measured : work.measured) {
      auto run = load_run(queries, *measured, work.point.world_size);
      if (!run) return run.status().with_context("ceilings of run " + measured->run_id);
      runs.push_back(std::move(*run));
    }
    work.point.ceilings = combine_ceilings(runs);
  }
  return Status::ok();
}

}  // namespace scalestudy::results
