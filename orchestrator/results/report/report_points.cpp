#include "orchestrator/results/report/report_points.hpp"

#include <algorithm>
#include <tuple>

#include "orchestrator/common/job_state.hpp"
#include "orchestrator/results/analysis/efficiency.hpp"
#include "orchestrator/results/analysis/repeat_keys.hpp"

namespace scalestudy::results {
namespace {

// Parameters that describe the scale of a run rather than its configuration.
const std::set<std::string> kScaleKeys = {"nodes", "tasks_per_node", "world_size",
                                          "gpus",  "gpus_per_node",  "ranks"};

std::optional<double> median_of(const std::vector<const RunMeasurement*>& runs,
                                std::optional<double> (*get)(const RunMeasurement&)) {
  std::vector<double> values;
  for (const auto* run : runs) {
    if (auto value = get(*run)) values.push_back(*value);
  }
  if (values.empty()) return std::nullopt;
  return median(values);
}

// The repeats' distinct values, in the order first seen, joined by ", "; empty ones left out.
std::string distinct_values(const std::vector<const RunMeasurement*>& runs,
                            const std::string& (*get)(const RunMeasurement&)) {
  std::vector<std::string> seen;
  std::string joined;
  for (const auto* run : runs) {
    const std::string& value = get(*run);
    if (value.empty() || std::find(seen.begin(), seen.end(), value) != seen.end()) continue;
    seen.push_back(value);
    joined += (joined.empty() ? "" : ", ") + value;
  }
  return joined;
}

// The point's devices as its measured repeats recorded them.
void set_device(const std::vector<const RunMeasurement*>& runs, ReportPoint& point) {
  point.device = distinct_values(
      runs, [](const RunMeasurement& r) -> const std::string& { return r.device.device; });
  point.gpu_model = distinct_values(
      runs, [](const RunMeasurement& r) -> const std::string& { return r.device.gpu_model; });
  point.gpus = 0;
  for (const auto* run : runs) point.gpus = std::max(point.gpus, run->device.gpus);
}

// Over the runs that measured the figure (a time or a rate of 0 is none): count 0 is "no
// figure", which the tables show as '-', never as 0.
Summary summarize_measured(const std::vector<const RunMeasurement*>& runs,
                           double (*get)(const RunMeasurement&)) {
  std::vector<double> values;
  for (const auto* run : runs) {
    if (get(*run) > 0) values.push_back(get(*run));
  }
  return summarize(values);
}

void fill_energy(const std::vector<const RunMeasurement*>& runs, ReportPoint& point) {
  std::vector<double> per_sample, per_token, power;
  std::string events;
  for (const auto* run : runs) {
    if (!run->energy) continue;
    const RunEnergy& energy = *run->energy;
    point.energy_recorded = true;
    if (energy.joules_per_sample) {
      per_sample.push_back(*energy.joules_per_sample);
      if (run->tokens_per_sample && *run->tokens_per_sample > 0) {
        per_token.push_back(*energy.joules_per_sample / *run->tokens_per_sample);
      }
    }
    if (energy.avg_power_w) power.push_back(*energy.avg_power_w);
    if (energy.peak_power_w) {
      point.peak_power_w = std::max(point.peak_power_w.value_or(0), *energy.peak_power_w);
    }
    if (point.energy_unavailable.empty()) point.energy_unavailable = energy.unavailable;
    for (const RankEnergy& rank : energy.ranks) {
      if (rank.sm_clock_max_mhz) {
        point.sm_clock_max_mhz =
            std::max(point.sm_clock_max_mhz.value_or(0), *rank.sm_clock_max_mhz);
      }
      if (rank.sm_clock_min_mhz) {
        point.sm_clock_min_mhz = std::min(point.sm_clock_min_mhz.value_or(*rank.sm_clock_min_mhz),
                                          *rank.sm_clock_min_mhz);
      }
      events += (events.empty() ? "" : ", ") + rank.clock_events;
    }
  }
  if (!per_sample.empty()) point.joules_per_sample = median(per_sample);
  if (!per_token.empty()) point.joules_per_token = median(per_token);
  if (!power.empty()) point.avg_power_w = median(power);
  point.clock_events = merge_names(events);
}

void fill_measurements(PointWork& work, std::optional<double> target_acc) {
  ReportPoint& point = work.point;
  const auto& runs = work.measured;
  for (const auto* run : runs) point.run_ids.push_back(run->run_id);
  if (!runs.empty()) set_device(runs, point);
  point.throughput_samples_per_s =
      summarize_measured(runs, [](const RunMeasurement& r) { return r.samples_per_s; });
  point.epoch_s = summarize_measured(runs, [](const RunMeasurement& r) { return r.epoch_s; });
  point.step_ms =
      summarize_measured(runs, [](const RunMeasurement& r) { return r.step_ms_median; });
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
  point.memory.gpu_reserved_peak_bytes =
      largest([](const RunMeasurement& r) { return r.gpu_mem_reserved_peak_bytes; });
  point.memory.nvml_peak_bytes = largest([](const RunMeasurement& r) { return r.nvml_peak_bytes; });
  point.memory.gpu_avg_bytes =
      median_of(runs, [](const RunMeasurement& r) { return r.gpu_mem_avg_bytes; });
  point.memory.gpu_mode_bytes =
      median_of(runs, [](const RunMeasurement& r) { return r.gpu_mem_mode_bytes; });
  point.memory.cpu_rss_peak_bytes =
      largest([](const RunMeasurement& r) { return r.cpu_rss_peak_bytes; });
  point.memory.optimizer_state_bytes =
      median_of(runs, [](const RunMeasurement& r) { return r.optimizer_state_bytes; });
  work.gradient_bytes = median_of(runs, [](const RunMeasurement& r) { return r.gradient_bytes; });
  work.bucket_cap_mb = median_of(runs, [](const RunMeasurement& r) { return r.bucket_cap_mb; });

  fill_energy(runs, point);

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

std::optional<double> ratio(std::optional<double> value, std::optional<double> base) {
  if (!value || !base || *base == 0) return std::nullopt;
  return *value / *base;
}

}  // namespace

std::string config_label(const std::map<std::string, std::string>& config) {
  if (config.empty()) return "default";
  std::string label;
  for (const auto& [key, value] : config) label += (label.empty() ? "" : " ") + key + "=" + value;
  return label;
}

bool finished_unsuccessfully(const std::string& run_state) {
  const auto job_state = common::parse_job_state(run_state);
  return job_state && common::is_terminal(*job_state) && *job_state != common::JobState::kCompleted;
}

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
      work.point.gpus = run.device.gpus;  // the measured repeats' once there are (set_device)
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

std::string point_name(const ReportPoint& point) {
  std::string name = "N=" + std::to_string(point.world_size);
  if (point.config_label != "default") name += " (" + point.config_label + ")";
  return name;
}

void set_memory_ratio(ReportPoint& point, const ReportPoint& base) {
  point.memory_ratio.gpu_peak_bytes =
      ratio(point.memory.gpu_peak_bytes, base.memory.gpu_peak_bytes);
  point.memory_ratio.gpu_reserved_peak_bytes =
      ratio(point.memory.gpu_reserved_peak_bytes, base.memory.gpu_reserved_peak_bytes);
  point.memory_ratio.nvml_peak_bytes =
      ratio(point.memory.nvml_peak_bytes, base.memory.nvml_peak_bytes);
  point.memory_ratio.gpu_avg_bytes = ratio(point.memory.gpu_avg_bytes, base.memory.gpu_avg_bytes);
  point.memory_ratio.gpu_mode_bytes =
      ratio(point.memory.gpu_mode_bytes, base.memory.gpu_mode_bytes);
  point.memory_ratio.cpu_rss_peak_bytes =
      ratio(point.memory.cpu_rss_peak_bytes, base.memory.cpu_rss_peak_bytes);
}

}  // namespace scalestudy::results
