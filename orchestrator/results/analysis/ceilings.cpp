#include "orchestrator/results/analysis/ceilings.hpp"

#include <cstdio>
#include <functional>

#include "harness/core/bus_bandwidth.hpp"
#include "orchestrator/results/analysis/device_peaks.hpp"
#include "orchestrator/results/analysis/statistics.hpp"

namespace scalestudy::results {
namespace {

constexpr double kTera = 1e12;
constexpr double kTrainingFlopsPerForward = 3;

// The median of what `figure` gives for the runs that have it; nullopt when none does.
std::optional<double> median_of(
    const std::vector<RunCeilings>& runs,
    const std::function<std::optional<double>(const RunCeilings&)>& figure) {
  std::vector<double> values;
  for (const RunCeilings& run : runs) {
    if (auto value = figure(run)) values.push_back(*value);
  }
  if (values.empty()) return std::nullopt;
  return median(values);
}

std::optional<double> ratio(const std::optional<double>& part, const std::optional<double>& whole) {
  if (!part || !whole || *whole <= 0) return std::nullopt;
  return *part / *whole;
}

std::optional<double> achieved_tflops(const RunCeilings& run) {
  const std::optional<double> per_sample =
      run.train_flops_per_sample ? run.train_flops_per_sample
      : run.forward_flops ? std::optional<double>(kTrainingFlopsPerForward * *run.forward_flops)
                          : std::nullopt;
  if (!per_sample || run.samples_per_s <= 0 || run.world_size < 1) return std::nullopt;
  return *per_sample * run.samples_per_s / run.world_size / kTera;
}

std::optional<double> achieved_busbw(const RunCeilings& run) {
  if (!run.allreduce_span_ms || !run.gradient_bytes || *run.allreduce_span_ms <= 0) {
    return std::nullopt;
  }
  return bandwidth::algbw_gbps(static_cast<int64_t>(*run.gradient_bytes),
                               *run.allreduce_span_ms * 1000) *
         bandwidth::allreduce_bus_factor(run.world_size);
}

void set_peak(const RunCeilings& first, PointCeilings& point) {
  point.device = first.gpu_model.empty() ? "cpu" : first.gpu_model;
  // The site's own clocks win over the datasheet, for the device the system declares: a run
  // that saw another GPU (or none) is measured against its own device's peak.
  const bool system_device =
      first.system_gpu_model.empty() || first.system_gpu_model == first.gpu_model;
  if (first.system_peak_tflops && system_device) {
    point.peak_tflops = first.system_peak_tflops;
    point.peak_source = "system " + first.system;
    return;
  }
  const std::string not_system = first.system_peak_tflops
                                     ? " (system " + first.system + "'s peak is for " +
                                           first.system_gpu_model + ", not " + point.device + ")"
                                     : "";
  if (first.gpu_model.empty()) {
    point.peak_note = "CPU: no datasheet peak" + not_system;
    return;
  }
  auto peak = datasheet_dense_peak(first.gpu_model, first.precision);
  if (!peak) {
    point.peak_note =
        "no datasheet peak for " + first.gpu_model + " at " + first.precision + not_system;
    return;
  }
  point.device = peak->device;
  point.peak_tflops = peak->tflops;
  point.peak_source = "datasheet" + not_system;
}

}  // namespace

std::optional<PointCeilings> combine_ceilings(const std::vector<RunCeilings>& runs) {
  std::vector<RunCeilings> calibrated;
  for (const RunCeilings& run : runs) {
    if (run.gemm_tflops) calibrated.push_back(run);
  }
  if (calibrated.empty()) return std::nullopt;
  PointCeilings point;
  point.runs = static_cast<int>(calibrated.size());
  point.precision = calibrated.front().precision;
  set_peak(calibrated.front(), point);
  point.achieved_tflops = median_of(calibrated, achieved_tflops);
  point.mfu = ratio(point.achieved_tflops, point.peak_tflops);
  point.gemm_tflops = median_of(calibrated, [](const RunCeilings& r) { return r.gemm_tflops; });
  point.gemm_fraction = ratio(point.achieved_tflops, point.gemm_tflops);
  point.allreduce_busbw_gbps =
      median_of(calibrated, [](const RunCeilings& r) { return r.allreduce_busbw_gbps; });
  point.achieved_busbw_gbps = median_of(calibrated, achieved_busbw);
  point.busbw_fraction = ratio(point.achieved_busbw_gbps, point.allreduce_busbw_gbps);
  point.calibration_pct = median_of(calibrated, [](const RunCeilings& r) -> std::optional<double> {
    if (!r.calibration_s || r.run_s <= 0) return std::nullopt;
    return *r.calibration_s / (*r.calibration_s + r.run_s) * 100;
  });
  return point;
}

std::vector<std::string> ceiling_warnings(const PointCeilings& point) {
  std::vector<std::string> warnings;
  char text[320];
  if (point.gemm_fraction && *point.gemm_fraction > 1 && point.gemm_tflops) {
    std::snprintf(text, sizeof text,
                  "trained at %.0f%% of the GEMM ceiling its calibration measured (%.3g "
                  "TFLOPS/device): the calibration ran slower than the training (a busy host "
                  "at run start?), so it is no ceiling here",
                  *point.gemm_fraction * 100, *point.gemm_tflops);
    warnings.push_back(text);
  }
  if (point.busbw_fraction && *point.busbw_fraction > 1) {
    std::snprintf(text, sizeof text,
                  "the gradient all-reduce reached %.0f%% of the calibrated bus bandwidth: "
                  "training times it from the last rank's arrival, the calibration from a "
                  "synchronised start, so it is no ceiling here",
                  *point.busbw_fraction * 100);
    warnings.push_back(text);
  }
  return warnings;
}

}  // namespace scalestudy::results
