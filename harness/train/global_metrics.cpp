// A pass's totals reduced across ranks, and the global rate (global_metrics.hpp).
#include "harness/train/global_metrics.hpp"

#include <vector>

namespace scalestudy::train {

void PassTotals::add(const TaskOutput& output, int64_t samples_in_batch) {
  torch::NoGradGuard no_grad;
  loss_sum.add_(output.loss.detach(), static_cast<double>(samples_in_batch));
  if (output.correct.defined()) {
    correct.add_(output.correct.detach());
    has_accuracy = true;
  }
  samples += samples_in_batch;
}

Result<GlobalMetrics> reduce_pass(const PassTotals& totals, dist::Communicator& communicator) {
  std::vector<double> sums = {totals.loss_sum.item<double>(), totals.correct.item<double>(),
                              static_cast<double>(totals.samples)};
  if (Status reduced = communicator.allreduce_scalars(sums, dist::ScalarReduction::kSum);
      !reduced) {
    return reduced;
  }
  GlobalMetrics metrics;
  if (sums[2] > 0) metrics.loss = sums[0] / sums[2];
  if (totals.has_accuracy && sums[2] > 0) metrics.accuracy = sums[1] / sums[2];
  return metrics;
}

Result<double> global_rate(int64_t local_samples, double time_ms,
                           dist::Communicator& communicator) {
  std::vector<double> samples = {static_cast<double>(local_samples)};
  std::vector<double> slowest_ms = {time_ms};
  Status reduced = communicator.allreduce_scalars(samples, dist::ScalarReduction::kSum);
  if (reduced) reduced = communicator.allreduce_scalars(slowest_ms, dist::ScalarReduction::kMax);
  if (!reduced) return reduced;
  return slowest_ms[0] > 0 ? samples[0] * 1000.0 / slowest_ms[0] : 0.0;
}

}  // namespace scalestudy::train
