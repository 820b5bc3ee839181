#include "workloads/allreduce/allreduce_collective.hpp"

#include "harness/core/bus_bandwidth.hpp"

namespace scalestudy::collectives {
namespace {

constexpr int64_t kPatternPeriod = 4;

// Rank `rank`'s input as float64 on the buffer's device.
torch::Tensor input_of(const torch::Tensor& buffer, int rank) {
  auto options = torch::TensorOptions().dtype(torch::kFloat64).device(buffer.device());
  return torch::arange(buffer.numel(), options.dtype(torch::kInt64))
      .add_(rank)
      .remainder_(kPatternPeriod)
      .add_(1)
      .to(options);
}

}  // namespace

double AllreduceCollective::bus_factor(int ranks) const {
  return bandwidth::allreduce_bus_factor(ranks);
}

void AllreduceCollective::fill_input(torch::Tensor& buffer, int rank) const {
  buffer.copy_(input_of(buffer, rank));
}

Status AllreduceCollective::run(dist::Communicator& communicator,
                                const torch::Tensor& buffer) const {
  return communicator.allreduce_sum_async(buffer)->wait();
}

int64_t AllreduceCollective::count_wrong(const torch::Tensor& buffer, int ranks,
                                         double unit_roundoff) const {
  torch::Tensor expected = torch::zeros_like(buffer, torch::kFloat64);
  for (int rank = 0; rank < ranks; ++rank) expected.add_(input_of(buffer, rank));
  // Partial sums of these small integers are exact while they stay within the type's
  // contiguous integers (up to 1/u); beyond, n positive terms summed in any order are
  // within (n−1)·u of the exact sum (relative).
  const bool exact = kPatternPeriod * ranks <= 1 / unit_roundoff;
  torch::Tensor allowed = expected * (exact ? 0.0 : (ranks - 1) * unit_roundoff);
  torch::Tensor error = (buffer.to(torch::kFloat64) - expected).abs();
  // le() then not, so that NaN counts as wrong.
  return error.le(allowed).logical_not().sum().item<int64_t>();
}

}  // namespace scalestudy::collectives
