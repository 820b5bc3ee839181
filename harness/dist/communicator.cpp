#include "harness/dist/communicator.hpp"

namespace scalestudy::dist {
namespace {

class FinishedWork : public CollectiveWork {
 public:
  explicit FinishedWork(Status status) : status_(std::move(status)) {}
  Status wait() override { return status_; }

 private:
  Status status_;
};

}  // namespace

std::unique_ptr<CollectiveWork> finished_work(Status status) {
  return std::make_unique<FinishedWork>(std::move(status));
}

Status Communicator::allreduce_scalars(std::vector<double>& values, ScalarReduction reduction) {
  if (values.empty()) return Status::ok();
  torch::Tensor tensor = torch::tensor(values, torch::kFloat64);
  if (Status reduced = allreduce_tensor(tensor, reduction); !reduced) return reduced;
  auto accessor = tensor.accessor<double, 1>();
  for (size_t i = 0; i < values.size(); ++i) values[i] = accessor[static_cast<int64_t>(i)];
  return Status::ok();
}

std::unique_ptr<CollectiveWork> SelfCommunicator::allreduce_sum_async(const torch::Tensor&) {
  return finished_work();
}

std::unique_ptr<CollectiveWork> Communicator::reduce_scatter_sum_async(const torch::Tensor&,
                                                                       const torch::Tensor&) {
  return finished_work(Status::error("the " + backend() + " communicator has no reduce-scatter"));
}

std::unique_ptr<CollectiveWork> Communicator::all_gather_async(const torch::Tensor&,
                                                               const torch::Tensor&) {
  return finished_work(Status::error("the " + backend() + " communicator has no all-gather"));
}

Status SelfCommunicator::broadcast(const torch::Tensor&, int root_rank) {
  if (root_rank != 0)
    return Status::error("broadcast root " + std::to_string(root_rank) + " outside world of 1");
  return Status::ok();
}

}  // namespace scalestudy::dist
