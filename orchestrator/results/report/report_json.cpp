#include <nlohmann/json.hpp>

#include "orchestrator/results/analysis/significance_json.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "orchestrator/results/report/report_systems.hpp"

namespace scalestudy::results {
namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json summary_json(const Summary& summary) {
  if (summary.count == 0) {
    return Json{{"count", 0},        {"median", nullptr},         {"min", nullptr},
                {"max", nullptr},    {"mean", nullptr},           {"stddev", nullptr},
                {"cv_pct", nullptr}, {"ci95_half_width", nullptr}};
  }
  return Json{
      {"count", summary.count},   {"median", summary.median},
      {"min", summary.min},       {"max", summary.max},
      {"mean", summary.mean},     {"stddev", summary.stddev},
      {"cv_pct", summary.cv_pct}, {"ci95_half_width", optional_number(summary.ci95_half_width)}};
}

Json systems_json(const Report& report) {
  Json compared = Json::array();
  for (const SystemsPoint& point : report.systems_side_by_side) {
    Json json{{"config", point.config_label},
              {"world_size", point.world_size},
              {"nodes", point.nodes},
              {"system", point.system},
              {"reference", point.reference},
              {"throughput_samples_per_s", summary_json(point.throughput_system)},
              {"reference_throughput_samples_per_s", summary_json(point.throughput_reference)}};
    add_mean_comparison(json, point.comparison);
    json["efficiency"] = optional_number(point.efficiency_system);
    json["reference_efficiency"] = optional_number(point.efficiency_reference);
    json["time_to_target_s"] = optional_number(point.time_to_target_system_s);
    json["reference_time_to_target_s"] = optional_number(point.time_to_target_reference_s);
    compared.push_back(std::move(json));
  }
  return compared;
}

Json memory_json(const MemoryUse& memory) {
  return Json{{"gpu_peak_bytes", optional_number(memory.gpu_peak_bytes)},
              {"gpu_reserved_peak_bytes", optional_number(memory.gpu_reserved_peak_bytes)},
              {"nvml_peak_bytes", optional_number(memory.nvml_peak_bytes)},
              {"gpu_avg_bytes", optional_number(memory.gpu_avg_bytes)},
              {"gpu_mode_bytes", optional_number(memory.gpu_mode_bytes)},
              {"cpu_rss_peak_bytes", optional_number(memory.cpu_rss_peak_bytes)},
              {"optimizer_state_bytes", optional_number(memory.optimizer_state_bytes)}};
}

Json rank_memory_json(const ReportPoint& point) {
  Json ranks = Json::array();
  for (const RankMemory& memory : point.rank_memory) {
    // gpu_avg_bytes: NVML's average under its /1 name (no run records an allocator average).
    ranks.push_back(
        Json{{"rank", memory.rank},
             {"host", memory.host.empty() ? Json(nullptr) : Json(memory.host)},
             {"gpu_peak_bytes", optional_number(memory.gpu_peak_bytes)},
             {"gpu_reserved_peak_bytes", optional_number(memory.gpu_reserved_peak_bytes)},
             {"gpu_avg_bytes", optional_number(memory.nvml_avg_bytes)},
             {"rss_peak_bytes", optional_number(memory.rss_peak_bytes)},
             {"rss_avg_bytes", optional_number(memory.rss_avg_bytes)},
             {"nvml_peak_bytes", optional_number(memory.nvml_peak_bytes)},
             {"nvml_avg_bytes", optional_number(memory.nvml_avg_bytes)}});
  }
  return ranks;
}

Json bandwidth_curves_json(const Report& report) {
  Json curves = Json::array();
  for (const BandwidthCurve& curve : report.bandwidth_curves) {
    Json points = Json::array();
    for (const BandwidthPoint& point : curve.points) {
      points.push_back(Json{{"bytes", point.bytes}, {"busbw_gbps", point.busbw_gbps}});
    }
    curves.push_back(
        Json{{"run_id", curve.source}, {"world_size", curve.world_size}, {"points", points}});
  }
  return curves;
}

Json comm_json(const ReportPoint& point) {
  if (!point.comm) return nullptr;
  const CommPrediction& comm = *point.comm;
  return Json{{"curve", point.comm_curve_source},
              {"busbw_gbps", comm.busbw_gbps},
              {"comm_ms", comm.comm_ms},
              {"compute_ms", comm.compute_ms},
              {"predicted_step_ms", comm.predicted_step_ms},
              {"predicted_efficiency", comm.predicted_efficiency},
              {"measured_step_ms", comm.measured_step_ms},
              {"measured_efficiency", comm.measured_efficiency}};
}

Json time_to_target_json(const ReportPoint& point) {
  if (!point.to_target) return nullptr;
  const TimeToTarget& target = *point.to_target;
  return Json{{"metric", target.metric},
              {"value", target.value},
              {"runs", target.runs},
              {"reached_runs", target.reached_runs},
              {"time_s", optional_number(target.time_s)},
              {"epoch", optional_number(target.epoch)},
              {"speedup", optional_number(target.speedup)},
              {"efficiency", optional_number(target.efficiency)}};
}

Json accuracy_vs_baseline_json(const ReportPoint& point) {
  if (!point.accuracy_vs_baseline) return nullptr;
  const AccuracyVersusBaseline& check = *point.accuracy_vs_baseline;
  return Json{{"metric", check.metric},
              {"epoch", check.epoch},
              {"change", check.change},
              {"repeats", check.repeats},
              {"identical_repeats", check.identical_repeats},
              {"worse", check.worse ? Json(*check.worse) : Json(nullptr)}};
}

Json ceilings_json(const ReportPoint& point) {
  if (!point.ceilings) return nullptr;
  const PointCeilings& ceilings = *point.ceilings;
  return Json{
      {"runs", ceilings.runs},
      {"device", ceilings.device},
      {"precision", ceilings.precision},
      {"peak_tflops", optional_number(ceilings.peak_tflops)},
      {"peak_source", ceilings.peak_source.empty() ? Json(nullptr) : Json(ceilings.peak_source)},
      {"peak_note", ceilings.peak_note.empty() ? Json(nullptr) : Json(ceilings.peak_note)},
      {"achieved_tflops", optional_number(ceilings.achieved_tflops)},
      {"mfu", optional_number(ceilings.mfu)},
      {"gemm_tflops", optional_number(ceilings.gemm_tflops)},
      {"gemm_fraction", optional_number(ceilings.gemm_fraction)},
      {"allreduce_busbw_gbps", optional_number(ceilings.allreduce_busbw_gbps)},
      {"achieved_busbw_gbps", optional_number(ceilings.achieved_busbw_gbps)},
      {"busbw_fraction", optional_number(ceilings.busbw_fraction)},
      {"calibration_pct", optional_number(ceilings.calibration_pct)}};
}

Json stragglers_json(const ReportPoint& point) {
  Json runs = Json::array();
  for (const RunStraggler& run : point.stragglers) {
    runs.push_back(Json{{"run_id", run.run_id},
                        {"rank", run.rank},
                        {"host", run.host},
                        {"steps", run.steps},
                        {"last_share", run.last_share},
                        {"chance_share", run.chance_share},
                        {"lateness_mean_ms", run.lateness_mean_ms},
                        {"lateness_lag1", run.lateness_lag1},
                        {"effective_steps", run.effective_steps},
                        {"p_value", run.p_value},
                        {"step_ms_median", optional_number(run.step_ms_median)},
                        {"host_other_work_cores", optional_number(run.host_other_work_cores)},
                        {"late_beyond_chance", run.late_beyond_chance()},
                        {"stands_out", run.stands_out()},
                        {"wait_median_ms", run.wait_median_ms},
                        {"wait_p95_ms", run.wait_p95_ms}});
  }
  return runs;
}

Json energy_json(const ReportPoint& point) {
  if (!point.energy_recorded) return nullptr;
  return Json{{"joules_per_sample", optional_number(point.joules_per_sample)},
              {"joules_per_token", optional_number(point.joules_per_token)},
              {"avg_power_w", optional_number(point.avg_power_w)},
              {"peak_power_w", optional_number(point.peak_power_w)},
              {"sm_clock_max_mhz", optional_number(point.sm_clock_max_mhz)},
              {"sm_clock_min_mhz", optional_number(point.sm_clock_min_mhz)},
              {"clock_events", point.clock_events},
              {"unavailable", point.energy_unavailable}};
}

Json rank_arrivals_json(const ReportPoint& point) {
  Json ranks = Json::array();
  for (const RankArrival& arrival : point.rank_arrivals) {
    ranks.push_back(Json{{"rank", arrival.rank},
                         {"host", arrival.host},
                         {"steps", arrival.steps},
                         {"late_median_ms", arrival.late_median_ms},
                         {"last_share", arrival.last_share}});
  }
  return ranks;
}

Json straggler_hosts_json(const Report& report) {
  Json hosts = Json::array();
  for (const HostStraggles& host : report.straggler_hosts) {
    hosts.push_back(Json{{"host", host.host},
                         {"runs", host.runs},
                         {"runs_named", host.runs_named},
                         {"steps", host.steps},
                         {"steps_last", host.steps_last},
                         {"wait_median_ms", optional_number(host.wait_median_ms)},
                         {"late_median_ms", optional_number(host.late_median_ms)}});
  }
  return hosts;
}

Json point_json(const ReportPoint& point) {
  Json accuracy = Json::array();
  for (const auto& epoch : point.accuracy_curve) {
    accuracy.push_back(Json{{"epoch", epoch.epoch}, {"val_acc", epoch.val_acc}});
  }
  Json printed = Json::object();
  for (const auto& [name, metric] : point.output_metrics) {
    printed[name] = Json{{"value", metric.value}, {"unit", metric.unit}};
  }
  const bool measured = !point.run_ids.empty();
  return Json{
      {"config_label", point.config_label},
      {"config", Json(point.config)},
      {"nodes", point.nodes},
      {"world_size", point.world_size},
      {"gpus", point.gpus},
      {"device", point.device.empty() ? Json(nullptr) : Json(point.device)},
      {"gpu_model", point.gpu_model.empty() ? Json(nullptr) : Json(point.gpu_model)},
      {"global_batch", point.global_batch},
      {"per_gpu_batch", point.per_gpu_batch},
      {"is_baseline", point.is_baseline},
      {"runs", Json{{"planned", point.planned_runs},
                    {"measured", point.run_ids.size()},
                    {"failed", point.failed_runs},
                    {"run_ids", point.run_ids}}},
      {"throughput_samples_per_s", summary_json(point.throughput_samples_per_s)},
      {"epoch_s", summary_json(point.epoch_s)},
      {"step_ms", summary_json(point.step_ms)},
      {"final_val_acc", optional_number(point.final_val_acc)},
      {"phases_pct", point.phases_measured ? Json{{"data", point.phases.data_pct},
                                                  {"compute", point.phases.compute_pct},
                                                  {"comm_exposed", point.phases.comm_exposed_pct},
                                                  {"optimizer", point.phases.optimizer_pct}}
                                           : Json(nullptr)},
      {"bottleneck", point.phases_measured ? Json(to_string(point.bottleneck)) : Json(nullptr)},
      {"device_hours_per_epoch", measured ? Json(point.device_hours_per_epoch) : Json(nullptr)},
      {"speedup", optional_number(point.speedup)},
      {"efficiency", optional_number(point.efficiency)},
      {"below_efficiency_threshold", point.below_efficiency_threshold},
      {"time_to_accuracy_s", optional_number(point.time_to_accuracy_s)},
      {"time_to_target", time_to_target_json(point)},
      {"accuracy_vs_baseline", accuracy_vs_baseline_json(point)},
      {"throughput_change_pct", optional_number(point.throughput_change_pct)},
      {"accuracy_change_points", optional_number(point.accuracy_change_points)},
      {"energy", energy_json(point)},
      {"memory", memory_json(point.memory)},
      {"memory_vs_baseline", memory_json(point.memory_ratio)},
      {"rank_memory", rank_memory_json(point)},
      {"comm_model", comm_json(point)},
      {"accuracy_curve", accuracy},
      {"output_metrics", printed},
      {"ceilings", ceilings_json(point)},
      {"stragglers", stragglers_json(point)},
      {"rank_arrivals", rank_arrivals_json(point)},
  };
}

Json projections_json(const Report& report) {
  Json projections = Json::array();
  for (const SeriesProjection& projection : report.projections) {
    const ProjectionModel& model = projection.model;
    Json points = Json::array();
    for (const ProjectedPoint& point : projection.points) {
      points.push_back(Json{{"world_size", point.world_size},
                            {"per_rank_batch", point.per_rank_batch},
                            {"compute_ms", point.compute_ms},
                            {"allreduce_ms", point.allreduce_ms},
                            {"exposed_comm_ms", point.exposed_comm_ms},
                            {"step_ms", point.step_ms},
                            {"throughput_samples_per_s", point.throughput_samples_per_s},
                            {"efficiency", point.efficiency},
                            {"measured_step_ms", optional_number(point.measured_step_ms)},
                            {"error_pct", optional_number(point.error_pct)}});
    }
    projections.push_back(Json{{"config_label", projection.config_label},
                               {"curve", projection.curve_source},
                               {"anchor_world_size", model.anchor_world_size},
                               {"compute_ms_per_sample", model.compute_ms_per_sample},
                               {"gradient_bytes", model.gradient_bytes},
                               {"bucket_bytes", model.bucket_bytes},
                               {"overlap_fraction", model.overlap_fraction},
                               {"points", points}});
  }
  return projections;
}

Json failed_attempts_json(const Report& report) {
  Json attempts = Json::array();
  for (const common::FailedAttempt& attempt : report.failed_attempts) {
    attempts.push_back(Json{{"run_id", attempt.run_id},
                            {"attempt", attempt.attempt},
                            {"state", attempt.state},
                            {"failure_class", common::to_string(attempt.kind)},
                            {"failure_evidence", attempt.evidence},
                            {"node_list", attempt.node_list}});
  }
  return attempts;
}

Json failure_nodes_json(const Report& report) {
  Json nodes = Json::array();
  for (const common::NodeFailures& node : report.failure_nodes) {
    Json failures = Json::object();
    Json elsewhere = Json::object();
    for (const auto& [kind, count] : node.failures) failures[common::to_string(kind)] = count;
    for (const auto& [kind, count] : node.elsewhere) elsewhere[common::to_string(kind)] = count;
    nodes.push_back(Json{{"node", node.node},
                         {"failures", failures},
                         {"other_studies", elsewhere},
                         {"flagged", node.flagged}});
  }
  return nodes;
}

Json co_running_json(const Report& report) {
  Json pairs = Json::array();
  for (const CoRunning& pair : report.co_running) {
    pairs.push_back(Json{{"run_a", pair.run_a},
                         {"run_b", pair.run_b},
                         {"allocation", pair.allocation},
                         {"nodes_a", pair.nodes_a},
                         {"nodes_b", pair.nodes_b},
                         {"overlap_s", pair.overlap_s}});
  }
  return pairs;
}

Json overlaps_json(const Report& report) {
  Json overlaps = Json::array();
  for (const RunOverlap& overlap : report.overlaps) {
    overlaps.push_back(Json{{"run_a", overlap.run_a},
                            {"run_b", overlap.run_b},
                            {"host", overlap.host},
                            {"overlap_s", overlap.overlap_s}});
  }
  return overlaps;
}

}  // namespace

std::string render_report_json(const Report& report) {
  Json points = Json::array();
  for (const auto& point : report.points) {
    Json json = point_json(point);
    const std::string name = system_of(point, report);
    json["system"] = name.empty() ? Json(nullptr) : Json(name);
    points.push_back(std::move(json));
  }
  Json sensitivity = nullptr;
  if (report.sensitivity) {
    const SensitivityVerdict& verdict = *report.sensitivity;
    sensitivity = Json{
        {"baseline_config", verdict.baseline_config},
        {"best_config", verdict.best_config},
        {"best_throughput_change_pct", verdict.best_throughput_change_pct},
        {"beats_baseline", verdict.beats_baseline()},
        {"best_accuracy_change_points", optional_number(verdict.best_accuracy_change_points)},
        {"target_met", verdict.target_met ? Json(*verdict.target_met) : Json(nullptr)},
        {"repeats", verdict.repeats},
        {"welch_t", optional_number(verdict.welch_t)},
        {"significant", verdict.significant ? Json(*verdict.significant) : Json(nullptr)},
        {"repeats_needed", verdict.repeats_needed ? Json(*verdict.repeats_needed) : Json(nullptr)}};
  }
  Json document{
      {"schema", report.schema},
      {"study", report.study},
      {"kind", report.kind},
      {"device", report.gpu ? "gpu" : "cpu"},
      {"baseline", Json(report.baseline)},
      {"settings", Json{{"input_bound_pct", report.thresholds.input_bound_pct},
                        {"comm_bound_pct", report.thresholds.comm_bound_pct},
                        {"target_gain_pct", optional_number(report.target_gain_pct)},
                        {"throughput_unit", report.throughput_unit},
                        {"target_acc", optional_number(report.target_acc)},
                        {"efficiency_pct", optional_number(report.efficiency_threshold_pct)}}},
      {"runs", Json{{"planned", report.runs_planned},
                    {"measured", report.runs_measured},
                    {"failed", report.runs_failed}}},
      {"points", points},
      {"sensitivity", sensitivity},
      {"bandwidth_curves", bandwidth_curves_json(report)},
      {"projections", projections_json(report)},
      {"overlaps", overlaps_json(report)},
      {"co_running", co_running_json(report)},
      {"failed_attempts", failed_attempts_json(report)},
      {"failure_nodes", failure_nodes_json(report)},
      {"straggler_hosts", straggler_hosts_json(report)},
      {"systems", report.systems},
      {"systems_side_by_side", systems_json(report)},
      {"time_to_result", report.time_to_result
                             ? Json{{"wall_s", report.time_to_result->wall_s},
                                    {"queue_wait_s", report.time_to_result->queue_wait_s},
                                    {"run_s", report.time_to_result->run_s}}
                             : Json(nullptr)},
      {"warnings", report.warnings},
  };
  return document.dump(2) + "\n";
}

}  // namespace scalestudy::results
