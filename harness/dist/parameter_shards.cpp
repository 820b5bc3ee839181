#include "harness/dist/parameter_shards.hpp"

namespace scalestudy::dist {

ParameterShards::ParameterShards(const std::vector<torch::Tensor>& parameters,
                                 const GradientBucketer& bucketer, Communicator& communicator)
    : communicator_(communicator) {
  torch::NoGradGuard no_grad;
  const int64_t world = communicator_.world_size();
  for (size_t b = 0; b < bucketer.buckets().size(); ++b) {
    const torch::Tensor& first = parameters[bucketer.buckets()[b].parameter_indices.front()];
    flats_.push_back(
        torch::zeros({bucketer.bucket_elements(b)}, first.options().requires_grad(false)));
    // Every parameter becomes a view of the buffer, where the bucket has its gradient.
    std::vector<torch::Tensor> views = bucketer.views_into(b, flats_[b]);
    const std::vector<size_t>& indices = bucketer.buckets()[b].parameter_indices;
    for (size_t slot = 0; slot < indices.size(); ++slot) {
      torch::Tensor parameter = parameters[indices[slot]];
      views[slot].copy_(parameter);
      parameter.set_data(views[slot]);
    }
    const int64_t slice = bucketer.bucket_elements(b) / world;
    torch::Tensor shard =
        flats_[b].narrow(0, communicator_.rank() * slice, slice).detach().requires_grad_(true);
    shard.mutable_grad() = bucketer.gradient_shard(b);
    shards_.push_back(std::move(shard));
  }
}

Status ParameterShards::gather() {
  torch::NoGradGuard no_grad;
  std::vector<std::unique_ptr<CollectiveWork>> gathers;
  for (size_t b = 0; b < flats_.size(); ++b) {
    gathers.push_back(communicator_.all_gather_async(flats_[b], shards_[b]));
  }
  Status status = Status::ok();
  for (auto& gather : gathers) {
    Status waited = gather->wait();  // every one, so none outlives its tensors
    if (status && !waited) status = waited;
  }
  return status;
}

}  // namespace scalestudy::dist
