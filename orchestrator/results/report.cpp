#include "orchestrator/results/report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "orchestrator/common/job_state.hpp"
#include "orchestrator/results/efficiency.hpp"
#include "orchestrator/results/repeat_keys.hpp"
#include "orchestrator/results/run_measurements.hpp"
#include "orchestrator/results/thresholds.hpp"

namespace scalestudy::results {
namespace {

// Parameters that describe the scale of a run rather than its configuration.
const std::set<std::string> kScaleKeys = {"nodes", "tasks_per_node", "world_size",
                                          "gpus",  "gpus_per_node",  "ranks"};
constexpr double kDefaultCvWarnPct = 5;
constexpr int kDefaultMinRepeats = 3;

struct ReportSettings {
  double cv_warn_pct = kDefaultCvWarnPct;
  int min_repeats = kDefaultMinRepeats;
};

// What a point needs beyond ReportPoint for the model and the baselines.
struct PointWork {
  ReportPoint point;
  std::vector<const RunMeasurement*> measured;
  std::vector<const RunMeasurement*> failed;
  int config_order = 0;
  double comm_exposed_ms = 0;
  std::optional<double> gradient_bytes, bucket_cap_mb;
};

std::string json_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::map<std::string, std::string> parse_object(const std::string& text, const std::string& what,
                                                std::vector<std::string>& warnings) {
  std::map<std::string, std::string> values;
  if (text.empty()) return values;
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) {
    warnings.push_back("study " + what + " is not a JSON object; ignored: " + text);
    return values;
  }
  for (const auto& [key, value] : json.items()) {
    // sched stores named report thresholds as {"thresholds": {name: value}}.
    if (value.is_object()) {
      for (const auto& [inner_key, inner] : value.items()) values[inner_key] = json_text(inner);
    } else {
      values[key] = json_text(value);
    }
  }
  return values;
}

std::optional<double> number_setting(const std::map<std::string, std::string>& settings,
                                     const std::string& key, std::vector<std::string>& warnings) {
  auto it = settings.find(key);
  if (it == settings.end()) return std::nullopt;
  try {
    return std::stod(it->second);
  } catch (const std::exception&) {
    warnings.push_back("report setting " + key + " is not a number: " + it->second);
    return std::nullopt;
  }
}

// A run whose job finished without success (a state of the study database's runs table).
bool finished_unsuccessfully(const std::string& run_state) {
  const auto job_state = common::parse_job_state(run_state);
  return job_state && common::is_terminal(*job_state) && *job_state != common::JobState::kCompleted;
}

bool completed(const std::string& run_state) {
  return common::parse_job_state(run_state) == common::JobState::kCompleted;
}

// A run's batch is what its workload recorded it trained with, where it recorded one; a
// run that did not train with its planned batch is a warning.
void use_recorded_batch(RunMeasurement& run, std::vector<std::string>& warnings) {
  if (!run.recorded_global_batch || !run.recorded_per_rank_batch) return;
  if (*run.recorded_global_batch != run.global_batch ||
      *run.recorded_per_rank_batch != run.per_gpu_batch) {
    warnings.push_back("run " + run.run_id + " trained with a global batch of " +
                       std::to_string(*run.recorded_global_batch) + " (" +
                       std::to_string(*run.recorded_per_rank_batch) + " per rank), planned " +
                       std::to_string(run.global_batch) + " (" + std::to_string(run.per_gpu_batch) +
                       " per rank); reported as trained");
  }
  run.global_batch = *run.recorded_global_batch;
  run.per_gpu_batch = *run.recorded_per_rank_batch;
}

std::optional<double> median_of(const std::vector<const RunMeasurement*>& runs,
                                std::optional<double> (*get)(const RunMeasurement&)) {
  std::vector<double> values;
  for (const auto* run : runs) {
    if (auto value = get(*run)) values.push_back(*value);
  }
  if (values.empty()) return std::nullopt;
  return median(values);
}

std::string config_label(const std::map<std::string, std::string>& config) {
  if (config.empty()) return "default";
  std::string label;
  for (const auto& [key, value] : config) label += (label.empty() ? "" : " ") + key + "=" + value;
  return label;
}

std::string point_name(const ReportPoint& point) {
  std::string name = "N=" + std::to_string(point.world_size);
  if (point.config_label != "default") name += " (" + point.config_label + ")";
  return name;
}

// Strong and weak studies: varied keys that take several values at one world size are
// the configuration; keys that follow the scale (batch, a scaled learning rate) are not.
// Sensitivity: every varied key but the scale's. Keys set by the repeat number are neither.
std::set<std::string> configuration_keys(const std::vector<RunMeasurement>& runs,
                                         const std::string& kind) {
  std::set<std::string> keys;
  std::map<std::string, std::map<int, std::set<std::string>>> values_by_scale;
  const std::set<std::string> repeat_keys = repeat_derived_keys(runs);
  for (const auto& run : runs) {
    for (const auto& [key, value] : run.varied) {
      if (kScaleKeys.count(key) || repeat_keys.count(key)) continue;
      if (kind == "sensitivity") keys.insert(key);
      values_by_scale[key][run.world_size].insert(value);
    }
  }
  for (const auto& [key, by_scale] : values_by_scale) {
    for (const auto& [scale, values] : by_scale) {
      if (values.size() > 1) keys.insert(key);
    }
  }
  return keys;
}

Summary summarize_runs(const std::vector<const RunMeasurement*>& runs,
                       double (*get)(const RunMeasurement&)) {
  std::vector<double> values;
  for (const auto* run : runs) values.push_back(get(*run));
  return summarize(values);
}

void fill_measurements(PointWork& work, std::optional<double> target_acc) {
  ReportPoint& point = work.point;
  const auto& runs = work.measured;
  for (const auto* run : runs) point.run_ids.push_back(run->run_id);
  point.throughput_samples_per_s =
      summarize_runs(runs, [](const RunMeasurement& r) { return r.samples_per_s; });
  point.epoch_s = summarize_runs(runs, [](const RunMeasurement& r) { return r.epoch_s; });
  point.step_ms = summarize_runs(runs, [](const RunMeasurement& r) { return r.step_ms_median; });
  point.final_val_acc = median_of(runs, [](const RunMeasurement& r) { return r.final_val_acc; });
  std::map<std::string, std::vector<double>> printed;
  for (const auto* run : runs) {
    for (const auto& [name, metric] : run->output_metrics) {
      printed[name].push_back(metric.value);
      point.output_metrics[name].unit = metric.unit;
    }
  }
  for (auto& [name, values] : printed) point.output_metrics[name].value = median(values);
  std::vector<double> data, compute, comm, optimizer, comm_ms;
  for (const auto* run : runs) {
    if (run->phases.step_ms <= 0) continue;  // measured by its output alone
    point.phases_measured = true;
    const PhaseShares shares = run->phases.shares();
    data.push_back(shares.data_pct);
    compute.push_back(shares.compute_pct);
    comm.push_back(shares.comm_exposed_pct);
    optimizer.push_back(shares.optimizer_pct);
    comm_ms.push_back(run->phases.comm_exposed_ms);
  }
  point.phases = {median(data), median(compute), median(comm), median(optimizer)};
  work.comm_exposed_ms = median(comm_ms);
  point.device_hours_per_epoch = device_hours_per_epoch(point.world_size, point.epoch_s.median);

  auto largest = [&](std::optional<double> (*get)(const RunMeasurement&)) {
    std::optional<double> result;
    for (const auto* run : runs) {
      if (auto value = get(*run)) result = std::max(result.value_or(*value), *value);
    }
    return result;
  };
  point.memory.gpu_peak_bytes =
      largest([](const RunMeasurement& r) { return r.gpu_mem_peak_bytes; });
  point.memory.gpu_avg_bytes =
      median_of(runs, [](const RunMeasurement& r) { return r.gpu_mem_avg_bytes; });
  point.memory.gpu_mode_bytes =
      median_of(runs, [](const RunMeasurement& r) { return r.gpu_mem_mode_bytes; });
  point.memory.cpu_rss_peak_bytes =
      largest([](const RunMeasurement& r) { return r.cpu_rss_peak_bytes; });
  work.gradient_bytes = median_of(runs, [](const RunMeasurement& r) { return r.gradient_bytes; });
  work.bucket_cap_mb = median_of(runs, [](const RunMeasurement& r) { return r.bucket_cap_mb; });

  std::map<int, std::vector<double>> accuracy_by_epoch;
  std::vector<double> times_to_accuracy;
  for (const auto* run : runs) {
    for (size_t epoch = 0; epoch < run->val_acc_per_epoch.size(); ++epoch) {
      if (run->val_acc_per_epoch[epoch]) {
        accuracy_by_epoch[static_cast<int>(epoch) + 1].push_back(*run->val_acc_per_epoch[epoch]);
      }
    }
    if (target_acc) {
      if (auto seconds =
              time_to_accuracy_s(run->epoch_s_per_epoch, run->val_acc_per_epoch, *target_acc)) {
        times_to_accuracy.push_back(*seconds);
      }
    }
  }
  for (const auto& [epoch, values] : accuracy_by_epoch) {
    point.accuracy_curve.push_back({epoch, median(values)});
  }
  if (!times_to_accuracy.empty()) point.time_to_accuracy_s = median(times_to_accuracy);
}

std::vector<PointWork> group_points(const std::vector<RunMeasurement>& runs,
                                    const std::set<std::string>& config_keys,
                                    std::optional<double> target_acc) {
  std::vector<PointWork> points;
  std::map<std::string, int> config_order;
  for (const auto& run : runs) {
    std::map<std::string, std::string> config;
    for (const auto& [key, value] : run.varied) {
      if (config_keys.count(key)) config[key] = value;
    }
    const std::string label = config_label(config);
    config_order.emplace(label, static_cast<int>(config_order.size()));
    auto it = std::find_if(points.begin(), points.end(), [&](const PointWork& work) {
      const ReportPoint& p = work.point;
      return p.config_label == label && p.world_size == run.world_size && p.nodes == run.nodes &&
             p.global_batch == run.global_batch && p.per_gpu_batch == run.per_gpu_batch;
    });
    if (it == points.end()) {
      PointWork work;
      work.point.config_label = label;
      work.point.config = config;
      work.point.nodes = run.nodes;
      work.point.world_size = run.world_size;
      work.point.gpus = run.gpus_per_node > 0 ? run.world_size : 0;
      work.point.global_batch = run.global_batch;
      work.point.per_gpu_batch = run.per_gpu_batch;
      work.config_order = config_order[label];
      points.push_back(std::move(work));
      it = points.end() - 1;
    }
    ++it->point.planned_runs;
    if (run.measured) {
      it->measured.push_back(&run);
    } else if (finished_unsuccessfully(run.state)) {
      it->failed.push_back(&run);
    }
  }
  std::stable_sort(points.begin(), points.end(), [](const PointWork& a, const PointWork& b) {
    return std::tie(a.config_order, a.point.world_size, a.point.nodes) <
           std::tie(b.config_order, b.point.world_size, b.point.nodes);
  });
  for (auto& work : points) {
    work.point.failed_runs = static_cast<int>(work.failed.size());
    fill_measurements(work, target_acc);
  }
  return points;
}

// Whether a point matches the selector; `scale_only` ignores configuration keys.
bool matches(const ReportPoint& point, const std::map<std::string, std::string>& selector,
             bool scale_only) {
  for (const auto& [key, value] : selector) {
    std::optional<int> scale;
    if (key == "world_size" || key == "gpus" || key == "ranks") scale = point.world_size;
    if (key == "nodes") scale = point.nodes;
    if (key == "global_batch") scale = point.global_batch;
    if (key == "per_gpu_batch") scale = point.per_gpu_batch;
    if (scale) {
      if (std::to_string(*scale) != value) return false;
    } else if (!scale_only) {
      auto it = point.config.find(key);
      if (it == point.config.end() || it->second != value) return false;
    }
  }
  return true;
}

std::optional<double> ratio(std::optional<double> value, std::optional<double> base) {
  if (!value || !base || *base == 0) return std::nullopt;
  return *value / *base;
}

void set_memory_ratio(ReportPoint& point, const ReportPoint& base) {
  point.memory_ratio.gpu_peak_bytes =
      ratio(point.memory.gpu_peak_bytes, base.memory.gpu_peak_bytes);
  point.memory_ratio.gpu_avg_bytes = ratio(point.memory.gpu_avg_bytes, base.memory.gpu_avg_bytes);
  point.memory_ratio.gpu_mode_bytes =
      ratio(point.memory.gpu_mode_bytes, base.memory.gpu_mode_bytes);
  point.memory_ratio.cpu_rss_peak_bytes =
      ratio(point.memory.cpu_rss_peak_bytes, base.memory.cpu_rss_peak_bytes);
}

// Which all-reduce curves a choice considers: those measured on one host (or whose hosts
// were not recorded), those measured across several, or all.
enum class CurveSpan { kAny, kOneHost, kSeveralHosts };

const BandwidthCurve* nearest_curve(const std::vector<BandwidthCurve>& curves, int world_size,
                                    CurveSpan span = CurveSpan::kAny) {
  const BandwidthCurve* best = nullptr;
  for (const auto& curve : curves) {
    // One rank has no bus: its curve's busbw is 0 by definition and says nothing.
    if (curve.points.empty() || curve.world_size < 2) continue;
    if ((span == CurveSpan::kOneHost && curve.hosts > 1) ||
        (span == CurveSpan::kSeveralHosts && curve.hosts < 2)) {
      continue;
    }
    if (!best ||
        std::abs(curve.world_size - world_size) < std::abs(best->world_size - world_size)) {
      best = &curve;
    }
  }
  return best;
}

void predict_communication(PointWork& work, const PointWork& base,
                           const std::vector<BandwidthCurve>& curves) {
  ReportPoint& point = work.point;
  if (point.run_ids.empty() || base.point.run_ids.empty() || !work.gradient_bytes) return;
  if (base.point.per_gpu_batch <= 0 || point.per_gpu_batch <= 0) return;
  // A run on several nodes is compared with an all-reduce across hosts when there is one.
  const BandwidthCurve* curve = nearest_curve(
      curves, point.world_size, point.nodes > 1 ? CurveSpan::kSeveralHosts : CurveSpan::kOneHost);
  if (!curve) curve = nearest_curve(curves, point.world_size);
  if (!curve) return;
  // A bucket holds at most the cap, and no more than all the gradients.
  const double message_bytes =
      work.bucket_cap_mb ? std::min(*work.bucket_cap_mb * 1024 * 1024, *work.gradient_bytes)
                         : *work.gradient_bytes;
  auto busbw = interpolate_busbw_gbps(*curve, message_bytes);
  if (!busbw) return;
  // The base's compute per sample: its step without the exposed all-reduce wait.
  const double compute_ms_per_sample =
      (base.point.step_ms.median - base.comm_exposed_ms) / base.point.per_gpu_batch;
  point.comm = predict_step(compute_ms_per_sample, point.per_gpu_batch, point.world_size,
                            *work.gradient_bytes, *busbw, point.step_ms.median);
  point.comm_curve_source =
      curve->source + " (world size " + std::to_string(curve->world_size) + ")";
}

void apply_scaling(std::vector<PointWork>& points, const Report& report,
                   const std::vector<BandwidthCurve>& curves) {
  std::map<std::string, const PointWork*> base_by_series;
  for (const auto& work : points) {
    if (work.point.run_ids.empty()) continue;
    auto& base = base_by_series[work.point.config_label];
    if (matches(work.point, report.baseline, true) &&
        (!base || !matches(base->point, report.baseline, true))) {
      base = &work;
    } else if (!base) {
      base = &work;
    }
  }
  for (auto& work : points) {
    auto it = base_by_series.find(work.point.config_label);
    if (it == base_by_series.end() || work.point.run_ids.empty()) continue;
    const ReportPoint& base = it->second->point;
    ReportPoint& point = work.point;
    point.is_baseline = &it->second->point == &point;
    if (report.kind == "strong") {
      point.speedup = strong_speedup(base.throughput_samples_per_s.median,
                                     point.throughput_samples_per_s.median);
      point.efficiency = strong_efficiency(base.throughput_samples_per_s.median, base.world_size,
                                           point.throughput_samples_per_s.median, point.world_size);
    } else if (report.kind == "weak") {
      point.efficiency = weak_efficiency(base.step_ms.median, point.step_ms.median);
    }
    set_memory_ratio(point, base);
    predict_communication(work, *it->second, curves);
  }
}

void judge_significance(const Summary& reference, const Summary& best,
                        SensitivityVerdict& verdict) {
  const MeanComparison comparison = compare_means(reference, best);
  verdict.repeats = std::min(reference.count, best.count);
  verdict.welch_t = comparison.welch_t;
  verdict.significant = comparison.significant;
  if (!comparison.significant) {
    verdict.repeats_needed = kMinRepeatsForTest + 1;  // no noise estimate yet
  } else if (!*comparison.significant) {
    verdict.repeats_needed =
        repeats_needed(std::max(reference.cv_pct, best.cv_pct), comparison.change_pct);
  }
}

// The model of one series from its largest measured point with gradient sizes.
std::optional<SeriesProjection> project_series(const std::vector<const PointWork*>& series,
                                               const BandwidthCurve& curve,
                                               const BandwidthCurve* inter_node_curve, bool strong,
                                               const std::vector<int>& targets) {
  const PointWork* anchor = nullptr;
  const PointWork* base = nullptr;
  for (const auto* work : series) {
    if (work->point.is_baseline) base = work;
    if (!work->gradient_bytes || work->point.per_gpu_batch <= 0) continue;
    if (!anchor || work->point.world_size > anchor->point.world_size) anchor = work;
  }
  if (!anchor || !base) return std::nullopt;
  SeriesProjection projection;
  projection.config_label = anchor->point.config_label;
  projection.curve_source = curve.source + " (world size " + std::to_string(curve.world_size) + ")";
  if (inter_node_curve) {
    projection.curve_source += "; across nodes " + inter_node_curve->source + " (world size " +
                               std::to_string(inter_node_curve->world_size) + ", " +
                               std::to_string(inter_node_curve->hosts) + " hosts)";
  }
  ProjectionModel& model = projection.model;
  model.strong = strong;
  model.global_batch = anchor->point.global_batch;
  model.per_rank_batch = anchor->point.per_gpu_batch;
  model.anchor_world_size = anchor->point.world_size;
  model.compute_ms_per_sample =
      (anchor->point.step_ms.median - anchor->comm_exposed_ms) / anchor->point.per_gpu_batch;
  model.gradient_bytes = *anchor->gradient_bytes;
  model.bucket_bytes = anchor->bucket_cap_mb ? *anchor->bucket_cap_mb * 1024 * 1024 : 0;
  model.curve = curve;
  if (inter_node_curve) model.inter_node_curve = *inter_node_curve;
  if (anchor->point.nodes > 0)
    model.ranks_per_node = anchor->point.world_size / anchor->point.nodes;
  model.overlap_fraction =
      overlap_fraction(anchor->comm_exposed_ms, model.gradient_bytes, model.bucket_bytes,
                       model.anchor_world_size, curve_for(model, model.anchor_world_size));
  model.base_world_size = base->point.world_size;
  model.base_throughput_samples_per_s = base->point.throughput_samples_per_s.median;
  model.base_step_ms = base->point.step_ms.median;
  std::set<int> world_sizes(targets.begin(), targets.end());
  for (const auto* work : series) world_sizes.insert(work->point.world_size);
  for (int world_size : world_sizes) {
    ProjectedPoint point = project(model, world_size);
    for (const auto* work : series) {
      if (work->point.world_size != world_size) continue;
      point.measured_step_ms = work->point.step_ms.median;
      point.error_pct = (point.step_ms - *point.measured_step_ms) / *point.measured_step_ms * 100;
    }
    projection.points.push_back(point);
  }
  return projection;
}

void add_projections(const std::vector<PointWork>& points,
                     const std::vector<BandwidthCurve>& curves, const std::vector<int>& targets,
                     Report& report) {
  if (report.kind != "strong" && report.kind != "weak") {
    report.warnings.push_back("--project: only strong and weak studies are projected");
    return;
  }
  const int largest_target = *std::max_element(targets.begin(), targets.end());
  const BandwidthCurve* one_host = nearest_curve(curves, largest_target, CurveSpan::kOneHost);
  const BandwidthCurve* several_hosts =
      nearest_curve(curves, largest_target, CurveSpan::kSeveralHosts);
  const BandwidthCurve* curve = one_host ? one_host : several_hosts;
  const BandwidthCurve* inter_node_curve = one_host ? several_hosts : nullptr;
  if (!curve) {
    report.warnings.push_back(
        "--project: no all-reduce bandwidth curve; run an all-reduce sweep "
        "(studies/allreduce-sweep.yaml) in the study or pass --comm-model");
    return;
  }
  std::map<std::string, std::vector<const PointWork*>> series;
  for (const auto& work : points) {
    if (!work.point.run_ids.empty()) series[work.point.config_label].push_back(&work);
  }
  for (const auto& [label, members] : series) {
    auto projection =
        project_series(members, *curve, inter_node_curve, report.kind == "strong", targets);
    if (projection && !several_hosts && projection->model.ranks_per_node > 0 &&
        largest_target > projection->model.ranks_per_node) {
      report.warnings.push_back(
          "--project: series " + label +
          " is projected across nodes with an all-reduce "
          "measured on one host: inter-node links are assumed as fast as intra-node ones "
          "(measure an all-reduce on 2+ nodes to ground it)");
    }
    if (projection) {
      report.projections.push_back(std::move(*projection));
    } else {
      report.warnings.push_back("--project: series " + label +
                                " has no measured point with gradient bytes");
    }
  }
}

void apply_sensitivity(std::vector<PointWork>& points, Report& report) {
  // The first measured point matching the selector, else the first at the smallest scale.
  const PointWork* base = nullptr;
  const PointWork* smallest = nullptr;
  for (const auto& work : points) {
    if (work.point.run_ids.empty()) continue;
    if (!smallest || work.point.world_size < smallest->point.world_size) smallest = &work;
    if (!base && !report.baseline.empty() && matches(work.point, report.baseline, false)) {
      base = &work;
    }
  }
  if (!base) base = smallest;
  if (!base) return;
  const std::string base_label = base->point.config_label;
  SensitivityVerdict verdict;
  bool any_compared = false;
  const ReportPoint* best = nullptr;
  const ReportPoint* best_reference = nullptr;
  for (auto& work : points) {
    ReportPoint& point = work.point;
    if (point.run_ids.empty()) continue;
    // The baseline configuration at this point's scale.
    auto same_scale = std::find_if(points.begin(), points.end(), [&](const PointWork& other) {
      return other.point.config_label == base_label && other.point.world_size == point.world_size &&
             !other.point.run_ids.empty();
    });
    if (same_scale == points.end()) continue;
    const ReportPoint& reference = same_scale->point;
    point.is_baseline = &reference == &point;
    point.throughput_change_pct = throughput_change_pct(reference.throughput_samples_per_s.median,
                                                        point.throughput_samples_per_s.median);
    if (point.final_val_acc && reference.final_val_acc) {
      point.accuracy_change_points =
          accuracy_change_points(*reference.final_val_acc, *point.final_val_acc);
    }
    set_memory_ratio(point, reference);
    if (point.is_baseline || point.world_size != base->point.world_size) continue;
    if (!any_compared || *point.throughput_change_pct > verdict.best_throughput_change_pct) {
      verdict.best_config = point.config_label;
      verdict.best_throughput_change_pct = *point.throughput_change_pct;
      verdict.best_accuracy_change_points = point.accuracy_change_points;
      any_compared = true;
      best = &point;
      best_reference = &reference;
    }
  }
  if (!any_compared) return;
  judge_significance(best_reference->throughput_samples_per_s, best->throughput_samples_per_s,
                     verdict);
  if (report.target_gain_pct) {
    verdict.target_met = verdict.best_throughput_change_pct >= *report.target_gain_pct;
  }
  report.sensitivity = verdict;
}

void add_warnings(const std::vector<PointWork>& points, const std::vector<RunMeasurement>& runs,
                  const ReportSettings& settings, Report& report) {
  std::string few_repeats;
  for (const auto& work : points) {
    const ReportPoint& point = work.point;
    if (!work.failed.empty()) {
      std::string reason = work.failed.front()->state;
      if (!work.failed.front()->reason.empty()) reason += ": " + work.failed.front()->reason;
      report.warnings.push_back(point_name(point) + ": " + std::to_string(work.failed.size()) +
                                " of " + std::to_string(point.planned_runs) +
                                " runs failed (first: " + reason + ")");
    }
    if (point.run_ids.empty()) {
      report.warnings.push_back(point_name(point) + ": no measured runs");
      continue;
    }
    if (static_cast<int>(point.run_ids.size()) < settings.min_repeats) {
      few_repeats += (few_repeats.empty() ? "" : ", ") + point_name(point) + " (" +
                     std::to_string(point.run_ids.size()) + ")";
    }
    if (point.throughput_samples_per_s.count >= 2 &&
        point.throughput_samples_per_s.cv_pct > settings.cv_warn_pct) {
      char text[160];
      std::snprintf(text, sizeof text, ": noisy, throughput CV %.1f%% over %d repeats (> %.0f%%)",
                    point.throughput_samples_per_s.cv_pct, point.throughput_samples_per_s.count,
                    settings.cv_warn_pct);
      report.warnings.push_back(point_name(point) + text);
    }
  }
  if (!few_repeats.empty()) {
    report.warnings.push_back("fewer than " + std::to_string(settings.min_repeats) +
                              " repeats, no 95% confidence interval: " + few_repeats);
  }
  int not_ingested = 0;
  for (const auto& run : runs) not_ingested += completed(run.state) && !run.measured;
  if (not_ingested > 0) {
    report.warnings.push_back(std::to_string(not_ingested) +
                              " completed runs are not ingested yet (scalestudy ingest)");
  }
  if (!report.baseline.empty()) {
    const bool scale_only = report.kind != "sensitivity";
    bool found = std::any_of(points.begin(), points.end(), [&](const PointWork& work) {
      return matches(work.point, report.baseline, scale_only);
    });
    if (!found) {
      std::string selector;
      for (const auto& [key, value] : report.baseline) {
        selector += (selector.empty() ? "" : ",") + key + "=" + value;
      }
      report.warnings.push_back("baseline " + selector +
                                " matches no measured point; using the smallest scale");
    }
  }
}

Status fill_rank_memory(sqlite::Database& study_db, std::vector<PointWork>& points) {
  for (auto& work : points) {
    std::vector<std::vector<RankMemory>> repeats;
    for (const auto& run_id : work.point.run_ids) {
      auto ranks = load_rank_memory(study_db, run_id);
      if (!ranks) return ranks.status();
      repeats.push_back(std::move(*ranks));
    }
    work.point.rank_memory = combine_repeats(repeats);
  }
  return Status::ok();
}

Status add_overlaps(sqlite::Database& study_db, const std::vector<RunMeasurement>& runs,
                    Report& report) {
  auto windows = load_run_windows(study_db);
  if (!windows) return windows.status();
  std::map<std::string, std::string> name_of;  // efficiency-table runs: with their scale
  for (const auto& run : runs) {
    name_of[run.run_id] = run.run_id + " (N=" + std::to_string(run.world_size) + ")";
  }
  auto name = [&](const std::string& run_id) {
    auto it = name_of.find(run_id);
    return it == name_of.end() ? run_id : it->second;
  };
  report.overlaps = find_overlaps(std::move(*windows));
  for (const auto& overlap : report.overlaps) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f", overlap.overlap_s);
    report.warnings.push_back("runs " + name(overlap.run_a) + " and " + name(overlap.run_b) +
                              " ran at the same time for " + seconds + " s on host " +
                              overlap.host + ": they measured each other, not the hardware");
  }
  return Status::ok();
}

}  // namespace

Result<std::map<std::string, std::string>> parse_baseline_selector(const std::string& text) {
  std::map<std::string, std::string> selector;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == item.size()) {
      return Status::error("--baseline: expected key=value[,key=value], got '" + item + "'");
    }
    selector[item.substr(0, equals)] = item.substr(equals + 1);
  }
  return selector;
}

Result<Report> build_report(sqlite::Database& study_db, const ReportOptions& options) {
  auto info = load_study_info(study_db);
  if (!info) return info.status();
  auto all_runs = load_run_measurements(study_db);
  if (!all_runs) return all_runs.status();

  Report report;
  report.study = info->name;
  report.kind = info->kind;
  const auto settings = parse_object(info->report_json, "report settings", report.warnings);
  report.baseline = options.baseline_override.empty()
                        ? parse_object(info->baseline_json, "baseline", report.warnings)
                        : options.baseline_override;
  report.thresholds.input_bound_pct = options.input_bound_pct.value_or(
      number_setting(settings, "input_bound_pct", report.warnings).value_or(5));
  report.thresholds.comm_bound_pct = options.comm_bound_pct.value_or(
      number_setting(settings, "comm_bound_pct", report.warnings).value_or(20));
  report.target_gain_pct = options.target_gain_pct
                               ? options.target_gain_pct
                               : number_setting(settings, "target_gain_pct", report.warnings);
  report.target_acc = options.target_acc ? options.target_acc
                                         : number_setting(settings, "target_acc", report.warnings);
  report.efficiency_threshold_pct =
      options.efficiency_threshold_pct
          ? options.efficiency_threshold_pct
          : number_setting(settings, "efficiency_pct", report.warnings);
  if (report.target_acc && *report.target_acc > 1) *report.target_acc /= 100;  // given in %
  ReportSettings limits;
  limits.cv_warn_pct =
      number_setting(settings, "cv_warn_pct", report.warnings).value_or(kDefaultCvWarnPct);
  limits.min_repeats = static_cast<int>(
      number_setting(settings, "min_repeats", report.warnings).value_or(kDefaultMinRepeats));

  // Profiling runs and all-reduce benchmarks are never points of the efficiency tables.
  std::vector<RunMeasurement> runs;
  for (auto& run : *all_runs) {
    if (run.profiled || run.workload == "allreduce") continue;
    use_recorded_batch(run, report.warnings);
    if (!options.git_commit.empty() && run.git_commit.rfind(options.git_commit, 0) != 0) continue;
    report.gpu |= run.gpus_per_node > 0;
    ++report.runs_planned;
    report.runs_measured += run.measured;
    report.runs_failed += !run.measured && finished_unsuccessfully(run.state);
    runs.push_back(std::move(run));
  }

  auto own_curves = load_bandwidth_curves(study_db);
  if (!own_curves) return own_curves.status();
  report.bandwidth_curves = std::move(*own_curves);
  std::stable_sort(
      report.bandwidth_curves.begin(), report.bandwidth_curves.end(),
      [](const BandwidthCurve& a, const BandwidthCurve& b) { return a.world_size < b.world_size; });
  std::vector<BandwidthCurve> curves = report.bandwidth_curves;
  if (!options.comm_model_database.empty()) {
    auto loaded = load_comm_model_curves(options.comm_model_database);
    if (!loaded) return loaded.status().with_context("--comm-model");
    curves = std::move(*loaded);
  }

  std::vector<PointWork> points =
      group_points(runs, configuration_keys(runs, report.kind), report.target_acc);
  for (auto& work : points) {
    work.point.bottleneck = classify_bottleneck(work.point.phases, report.thresholds);
  }
  if (Status memory = fill_rank_memory(study_db, points); !memory) return memory;
  if (report.kind == "sensitivity") {
    apply_sensitivity(points, report);
  } else {
    apply_scaling(points, report, curves);
  }
  if (!options.project_world_sizes.empty()) {
    add_projections(points, curves, options.project_world_sizes, report);
  }
  add_warnings(points, runs, limits, report);
  if (Status overlaps = add_overlaps(study_db, runs, report); !overlaps) return overlaps;
  for (auto& work : points) report.points.push_back(std::move(work.point));
  mark_threshold_misses(report);
  return report;
}

}  // namespace scalestudy::results
