#include "harness/dist/gradient_bucketer.hpp"

#include <algorithm>

namespace scalestudy::dist {
namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;

int64_t tensor_bytes(const torch::Tensor& tensor) {
  return tensor.numel() * static_cast<int64_t>(tensor.element_size());
}

}  // namespace

std::vector<BucketLayout> plan_buckets(const std::vector<torch::Tensor>& parameters,
                                       const BucketerOptions& options) {
  std::vector<BucketLayout> layouts;
  double cap_bytes = std::min(options.first_bucket_cap_mb, options.bucket_cap_mb) * kBytesPerMb;
  for (size_t i = parameters.size(); i-- > 0;) {
    const torch::Tensor& parameter = parameters[i];
    if (!parameter.requires_grad()) continue;
    bool same_kind =
        !layouts.empty() &&
        parameters[layouts.back().parameter_indices.front()].scalar_type() ==
            parameter.scalar_type() &&
        parameters[layouts.back().parameter_indices.front()].device() == parameter.device();
    bool fits = !options.overlap ||
                (!layouts.empty() && layouts.back().bytes + tensor_bytes(parameter) <= cap_bytes);
    if (layouts.empty() || !same_kind || !fits) {
      if (!layouts.empty()) cap_bytes = options.bucket_cap_mb * kBytesPerMb;
      layouts.emplace_back();
    }
    layouts.back().parameter_indices.push_back(i);
    layouts.back().bytes += tensor_bytes(parameter);
  }
  return layouts;
}

GradientBucketer::GradientBucketer(std::vector<torch::Tensor> parameters,
                                   Communicator& communicator, BucketerOptions options,
                                   const metrics::NvtxDomain* nvtx)
    : parameters_(std::move(parameters)),
      communicator_(communicator),
      options_(options),
      nvtx_(nvtx),
      layouts_(plan_buckets(parameters_, options)) {
  buckets_.resize(layouts_.size());
  for (size_t b = 0; b < layouts_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    int64_t elements = 0;
    for (size_t slot = 0; slot < layouts_[b].parameter_indices.size(); ++slot) {
      const torch::Tensor& parameter = parameters_[layouts_[b].parameter_indices[slot]];
      bucket.offsets.push_back(elements);
      elements += parameter.numel();
      hook_handles_.push_back(parameter.register_hook(
          [this, b, slot](const torch::Tensor& gradient) { on_gradient(b, slot, gradient); }));
    }
    const torch::Tensor& first = parameters_[layouts_[b].parameter_indices.front()];
    bucket.flat = torch::zeros({elements}, first.options().requires_grad(false));
    bucket.ready.assign(layouts_[b].parameter_indices.size(), false);
    bucket.pending = bucket.ready.size();
  }
}

GradientBucketer::~GradientBucketer() {
  size_t hook = 0;
  for (const BucketLayout& layout : layouts_) {
    for (size_t index : layout.parameter_indices) {
      parameters_[index].remove_hook(hook_handles_[hook++]);
    }
  }
}

void GradientBucketer::start_step() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Bucket& bucket : buckets_) {
    bucket.ready.assign(bucket.ready.size(), false);
    bucket.pending = bucket.ready.size();
    bucket.work.reset();
  }
  next_to_launch_ = 0;
}

void GradientBucketer::on_gradient(size_t bucket_index, size_t slot,
                                   const torch::Tensor& gradient) {
  std::lock_guard<std::mutex> lock(mutex_);
  Bucket& bucket = buckets_[bucket_index];
  if (bucket.ready[slot]) return;  // a second backward without start_step: keep the first
  torch::NoGradGuard no_grad;
  bucket.flat.narrow(0, bucket.offsets[slot], gradient.numel()).copy_(gradient.reshape(-1));
  bucket.ready[slot] = true;
  --bucket.pending;
  if (options_.overlap) launch_ready_buckets();
}

void GradientBucketer::launch_ready_buckets() {
  while (next_to_launch_ < buckets_.size() && buckets_[next_to_launch_].pending == 0) {
    metrics::NvtxRange range(nvtx_, "allreduce", layouts_[next_to_launch_].bytes);
    Bucket& bucket = buckets_[next_to_launch_++];
    bucket.work = communicator_.allreduce_sum_async(bucket.flat);
  }
}

Status GradientBucketer::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  torch::NoGradGuard no_grad;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    for (size_t slot = 0; slot < bucket.ready.size(); ++slot) {
      if (bucket.ready[slot]) continue;
      int64_t numel = parameters_[layouts_[b].parameter_indices[slot]].numel();
      bucket.flat.narrow(0, bucket.offsets[slot], numel).zero_();
      bucket.ready[slot] = true;
    }
    bucket.pending = 0;
  }
  launch_ready_buckets();
  const double world_size = communicator_.world_size();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    if (Status waited = bucket.work->wait(); !waited) return waited;
    bucket.work.reset();
    bucket.flat.div_(world_size);
    for (size_t slot = 0; slot < bucket.offsets.size(); ++slot) {
      torch::Tensor& parameter = parameters_[layouts_[b].parameter_indices[slot]];
      torch::Tensor averaged =
          bucket.flat.narrow(0, bucket.offsets[slot], parameter.numel()).view(parameter.sizes());
      if (parameter.grad().defined()) {
        parameter.mutable_grad().copy_(averaged);
      } else {
        parameter.mutable_grad() = averaged.clone();
      }
    }
  }
  return Status::ok();
}

int64_t GradientBucketer::gradient_bytes() const {
  int64_t bytes = 0;
  for (const BucketLayout& layout : layouts_) bytes += layout.bytes;
  return bytes;
}

}  // namespace scalestudy::dist
