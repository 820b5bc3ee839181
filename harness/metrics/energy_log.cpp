#include "harness/metrics/energy_log.hpp"

#include <algorithm>
#include <utility>

#include "harness/gpu/clock_events.hpp"

namespace scalestudy::metrics {

EnergyLog::EnergyLog(std::chrono::steady_clock::time_point origin, EnergyCounter counter,
                     TelemetrySource device, std::string unavailable)
    : origin_(origin),
      counter_(std::move(counter)),
      device_(std::move(device)),
      unavailable_(std::move(unavailable)) {}

DeviceReading EnergyLog::read() {
  DeviceReading reading;
  reading.t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count();
  if (counter_) {
    Result<double> energy = counter_();
    if (energy) {
      reading.energy_mj = *energy;
    } else if (counter_error_.empty()) {
      counter_error_ = energy.status().message();
      unavailable_ += (unavailable_.empty() ? "" : "; ") + counter_error_;
    }
  }
  if (device_) device_(reading.sample);
  return reading;
}

void EnergyLog::open(int64_t measured_samples) {
  if (open_) return;
  open_ = read();
  samples_at_open_ = measured_samples;
}

void EnergyLog::close(int epoch, int64_t measured_samples) {
  if (!open_) return;
  windows_.push_back({epoch, measured_samples - samples_at_open_, *open_, read()});
  open_.reset();
}

namespace {

void keep(std::optional<double>& kept, std::optional<double> value, bool larger) {
  if (!value) return;
  if (!kept || (larger ? *value > *kept : *value < *kept)) kept = value;
}

}  // namespace

std::vector<EnergyRow> summarise_energy(const std::vector<EnergyWindow>& windows,
                                        const std::vector<TelemetrySample>& samples,
                                        const std::string& unavailable) {
  std::vector<EnergyRow> rows;
  for (const EnergyWindow& window : windows) {
    EnergyRow row;
    row.epoch = window.epoch;
    row.samples = window.samples;
    row.measured_s = window.end.t_s - window.start.t_s;
    if (window.start.energy_mj && window.end.energy_mj) {
      row.energy_j = (*window.end.energy_mj - *window.start.energy_mj) / 1000.0;
      if (row.measured_s > 0) row.avg_power_w = *row.energy_j / row.measured_s;
    }
    uint64_t events = 0;
    bool events_read = false;
    auto add = [&](const TelemetrySample& sample) {
      keep(row.peak_power_w, sample.gpu_power_w, true);
      // An idle GPU's clock (a sample taken in an input or all-reduce stall) is not the
      // clock its work ran at; it would read as a drop without a reason.
      const bool idle = sample.gpu_clock_events && (*sample.gpu_clock_events & gpu::kGpuIdleEvent);
      if (!idle) {
        keep(row.sm_clock_max_mhz, sample.gpu_sm_clock_mhz, true);
        keep(row.sm_clock_min_mhz, sample.gpu_sm_clock_mhz, false);
      }
      if (sample.gpu_clock_events) {
        events |= *sample.gpu_clock_events;
        events_read = true;
      }
    };
    add(window.start.sample);
    for (const TelemetrySample& sample : samples) {
      if (sample.t_s >= window.start.t_s && sample.t_s <= window.end.t_s) add(sample);
    }
    add(window.end.sample);
    row.clock_events = events_read ? gpu::clock_event_names(events) : "";
    // An entry point that is there but answers an error (a GPU without that sensor) leaves
    // no reason of its own: name what is missing.
    std::string missing;
    for (const auto& [read, what] :
         {std::pair<bool, const char*>{row.energy_j.has_value(), "energy"},
          {row.peak_power_w.has_value(), "power"},
          {row.sm_clock_min_mhz.has_value(), "SM clock"},
          {events_read, "clock events"}}) {
      if (!read) missing += (missing.empty() ? "" : ", ") + std::string(what);
    }
    if (!missing.empty()) {
      row.unavailable = unavailable.empty() ? "NVML gave no " + missing : unavailable;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace scalestudy::metrics
