// Workload: what a workload binary plugs into the driver (nccl-tests style: the driver
// owns flags, rank discovery, rendezvous, the run record, telemetry, signals and failure
// handling; a workload declares its flags and runs). A training workload is a
// TrainingTask wrapped by TrainingWorkload (training_workload.hpp); a benchmark such as the
// all-reduce sweep implements run() directly and writes `collectives` rows.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/dist/rank_discovery.hpp"
#include "harness/gpu/device_runtime.hpp"
#include "harness/metrics/energy_log.hpp"
#include "harness/record/run_writer.hpp"
#include "harness/train/flags.hpp"
#include "harness/train/termination_watcher.hpp"

namespace scalestudy::train {

// What the driver hands a running workload. References stay valid during run().
struct RunContext {
  const Flags& flags;
  const dist::RankInfo& rank_info;
  dist::Communicator& communicator;
  record::RunWriter& writer;
  // Run-level numbers the driver adds to `summary` (with cpu_rss_peak_bytes) at the end.
  std::map<std::string, double>& summary;
  // The rank's device (--device), the communicator's as well.
  gpu::DeviceRuntime& device;
  // SIGTERM / SIGINT: fail the run at once unless the workload asks to stop at a step
  // boundary instead (TerminationWatcher::stop_at_step_boundary).
  TerminationWatcher& termination;
  // The device's energy and clocks over each epoch's measured steps (`energy` table).
  metrics::EnergyLog& energy;
  // Set by a workload that stopped on request after writing a checkpoint to resume from:
  // the run record's reason. The driver then exits with exit_codes::kCheckpointed.
  std::optional<std::string> checkpointed = std::nullopt;
  bool is_rank0() const { return rank_info.rank == 0; }
};

class Workload {
 public:
  virtual ~Workload() = default;
  // The run table's `workload` column: "train", "allreduce", "ddpm".
  virtual std::string name() const = 0;
  virtual void declare_flags(Flags& flags) const = 0;
  // Sets defaults that depend on other flags' values (Flags::set_default), after parsing
  // and before anything reads them, so config_json records what the run uses.
  virtual void derive_defaults(Flags& flags) const {}
  // Checks the workload's flags before any rendezvous (fails fast on bad input).
  virtual Status validate(const Flags& flags) const { return Status::ok(); }
  virtual Status run(RunContext& context) = 0;
};

}  // namespace scalestudy::train
