// Collective: one collective's hooks into CollectiveSweep, as each nccl-tests collective
// (all_reduce.cu, ...) plugs its byte count, data initialisation, bandwidth factor and
// run into nccl-tests' common driver. The sweep owns sizes, timing, warm-up, flags, the
// run record and the output; a collective only knows its own semantics. Operations are
// in place on one buffer. Implementations hold no state; thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"

namespace scalestudy::collectives {

class Collective {
 public:
  virtual ~Collective() = default;
  // The collectives table's `op` and the run's workload name: "allreduce".
  virtual std::string op_name() const = 0;
  // busbw / algbw on `ranks` ranks: the fraction of the message each rank's busiest link
  // carries, which makes bus bandwidths comparable across world sizes (nccl-tests).
  virtual double bus_factor(int ranks) const = 0;
  // This rank's input, written into `buffer` (a 1-D tensor of the swept element type).
  virtual void fill_input(torch::Tensor& buffer, int rank) const = 0;
  // Runs the collective on `buffer` and waits until its result is in place.
  virtual Status run(dist::Communicator& communicator, const torch::Tensor& buffer) const = 0;
  // Elements of `buffer`, after one run over `ranks` ranks from fill_input's inputs, that
  // differ from the exact result by more than the element type's rounding allows.
  virtual int64_t count_wrong(const torch::Tensor& buffer, int ranks,
                              double unit_roundoff) const = 0;
};

}  // namespace scalestudy::collectives
