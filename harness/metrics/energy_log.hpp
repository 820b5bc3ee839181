// EnergyLog: the device's energy, power, SM clock and clock-event reasons over each epoch's
// measured steps. The training loop opens a window at an epoch's first measured step and
// closes it at the epoch's end; each end reads the energy counter and the device (power,
// clock, reasons) at once, so a window's energy is exact to the counter however coarse the
// telemetry sampling. At the run's end summarise_energy() adds the telemetry samples taken
// inside each window (peak power, lowest clock, reasons seen) and gives the rows of the run
// database's `energy` table. Without NVML every figure stays empty and `unavailable` says
// why. Used by the training thread; the sources it calls are thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/metrics/telemetry_sampler.hpp"

namespace scalestudy::metrics {

// The device's energy counter in millijoules, or why it cannot be read.
using EnergyCounter = std::function<Result<double>()>;

// One reading at a window's end.
struct DeviceReading {
  double t_s = 0;  // on the telemetry samples' clock
  std::optional<double> energy_mj;
  TelemetrySample sample;  // power, SM clock, clock events
};

struct EnergyWindow {
  int epoch = 0;
  int64_t samples = 0;  // this rank's training samples in the window
  DeviceReading start, end;
};

// A row of the `energy` table: one epoch's measured steps on this rank.
struct EnergyRow {
  int epoch = 0;
  int64_t samples = 0;
  double measured_s = 0;
  std::optional<double> energy_j, avg_power_w, peak_power_w;
  std::optional<double> sm_clock_max_mhz, sm_clock_min_mhz;
  std::string clock_events;  // the reasons seen, gpu::clock_event_names
  std::string unavailable;   // why figures are empty; "" when none is
};

class EnergyLog {
 public:
  // `origin`: when the telemetry samples' t_s is 0. `counter` and `device` may be null
  // (no NVML), `unavailable` then says why.
  EnergyLog(std::chrono::steady_clock::time_point origin, EnergyCounter counter,
            TelemetrySource device, std::string unavailable);

  // `measured_samples`: the epoch's measured samples so far (a resumed epoch's earlier
  // attempts' included); the window counts those added until close(). A window already
  // open stays so: a checkpoint written mid-epoch closes the throughput window, not this.
  void open(int64_t measured_samples);
  // Ends the open window (if any) as `epoch`'s.
  void close(int epoch, int64_t measured_samples);

  const std::vector<EnergyWindow>& windows() const { return windows_; }
  const std::string& unavailable() const { return unavailable_; }

 private:
  DeviceReading read();

  std::chrono::steady_clock::time_point origin_;
  EnergyCounter counter_;
  TelemetrySource device_;
  std::string unavailable_;
  std::string counter_error_;  // the counter's first error
  std::optional<DeviceReading> open_;
  int64_t samples_at_open_ = 0;
  std::vector<EnergyWindow> windows_;
};

// The windows' rows, with the telemetry samples inside each window; `unavailable` is kept
// where a figure is empty.
std::vector<EnergyRow> summarise_energy(const std::vector<EnergyWindow>& windows,
                                        const std::vector<TelemetrySample>& samples,
                                        const std::string& unavailable);

}  // namespace scalestudy::metrics
