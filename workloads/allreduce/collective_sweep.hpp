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
// a GPU with nccl, the CPU with gloo. Used by the driver's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  Result<SizeResult> measure(dist::Communicator& communicator, const SweepSettings& settings,
                             torch::Tensor data) const;

  const Collective& collective_;
};

}  // namespace scalestudy::collectives
