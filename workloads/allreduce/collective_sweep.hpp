// CollectiveSweep: the common driver of the collective benchmarks (nccl-tests'
// common.cu), a train::Workload that runs one Collective over a sweep of message sizes.
// Per size, in place on one buffer: fill each rank's input, run once and count the wrong
// values of the result, then `warmup-iters` untimed runs, a barrier, and `iters` timed
// runs. The time of a size is the max over ranks of each rank's mean per run; algbw =
// bytes / time, busbw = algbw · the collective's bus factor. Rank 0 prints an
// nccl-tests-like table and writes one `collectives` row per size (what the report's
// communication model reads); every rank records `busbw_avg_gbps` in its summary. Any
// wrong value fails the run after the sweep.
// The buffer lives on the run's device (--device), which the driver's backend reduces:
// a GPU with nccl — its runs straight ncclAllReduce calls on the current stream, as thin as
// nccl-tests (DeviceRuntime::raw_nccl_allreduce), the rest through the process group — the
// CPU with gloo; the provenance's `collective_calls` says which (ncclAllReduce or
// process_group). For profilers, every timed run is a `step` NVTX
// range of the scalestudy domain (payload: its index, counted across the whole sweep)
// holding one range named after the collective (payload: the message's bytes), and
// `--profile-steps FROM:TO` brackets those steps with cudaProfilerStart/Stop, as in
// scalestudy-train (docs/profiling.md). Used by the driver's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/metrics/nvtx_domain.hpp"
#include "harness/profiling/profiler_window.hpp"
#include "harness/train/workload.hpp"
#include "workloads/allreduce/collective.hpp"
#include "workloads/allreduce/element_type.hpp"
#include "workloads/allreduce/sweep_table.hpp"

namespace scalestudy::collectives {

struct SweepSettings {
  std::vector<int64_t> sizes_bytes;
  ElementType element_type;
  std::string reduction = "sum";
  int64_t iterations = 20;
  int64_t warmup_iterations = 5;
  profiling::StepWindow profile_steps;  // over the timed runs, numbered across the sweep
};

// The sweep's flags (declared by CollectiveSweep::declare_flags), checked.
Result<SweepSettings> read_sweep_settings(const train::Flags& flags);

class CollectiveSweep : public train::Workload {
 public:
  explicit CollectiveSweep(const Collective& collective) : collective_(collective) {}

  std::string name() const override { return collective_.op_name(); }
  void declare_flags(train::Flags& flags) const override;
  Status validate(const train::Flags& flags) const override;
  Status run(train::RunContext& context) override;

 private:
  // The timed runs' NVTX ranges and profiler window; `next_step` numbers them.
  struct StepMarks {
    const metrics::NvtxDomain& nvtx;
    profiling::ProfilerWindow& window;
    int64_t next_step = 0;
  };

  Result<SizeResult> measure(dist::Communicator& communicator, const SweepSettings& settings,
                             torch::Tensor data, StepMarks& marks) const;

  const Collective& collective_;
};

}  // namespace scalestudy::collectives
