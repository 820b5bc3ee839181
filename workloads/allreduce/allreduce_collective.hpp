// AllreduceCollective: the in-place sum all-reduce as a Collective (nccl-tests'
// all_reduce.cu). busbw = algbw · 2(n−1)/n: a ring all-reduce moves 2(n−1)/n of the
// message through each rank's link. Rank r's input at index i is 1 + (i + r) mod 4:
// small integers whose sums are exact in every swept type at any realistic world size,
// different on every rank and along the buffer, so a missing rank's contribution or a
// misplaced chunk changes the result. Thread-safe.
#pragma once

#include "workloads/allreduce/collective.hpp"

namespace scalestudy::collectives {

class AllreduceCollective : public Collective {
 public:
  std::string op_name() const override { return "allreduce"; }
  double bus_factor(int ranks) const override;
  void fill_input(torch::Tensor& buffer, int rank) const override;
  Status run(dist::Communicator& communicator, const torch::Tensor& buffer) const override;
  int64_t count_wrong(const torch::Tensor& buffer, int ranks, double unit_roundoff) const override;
};

}  // namespace scalestudy::collectives
