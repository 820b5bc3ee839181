#include "harness/dist/gradient_bucketer.hpp"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>

#include <algorithm>

#include "harness/dist/clock_offset.hpp"

namespace scalestudy::dist {
namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;

int64_t tensor_bytes(const torch::Tensor& tensor) {
  return tensor.numel() * static_cast<int64_t>(tensor.element_size());
}

// `parameter`'s place in a flat buffer at `offset`, with the parameter's own strides
// (channels_last included), so autograd's accumulation and the optimizer see the layout
// they would without the bucket.
torch::Tensor view_at(const torch::Tensor& parameter, const torch::Tensor& flat, int64_t offset) {
  return parameter.is_non_overlapping_and_dense()
             ? flat.as_strided(parameter.sizes(), parameter.strides(), offset)
             : flat.narrow(0, offset, parameter.numel()).view(parameter.sizes());
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
  if (communicator_.communicates()) allocate_buckets();
}

void GradientBucketer::allocate_buckets() {
  torch::NoGradGuard no_grad;
  buckets_.resize(layouts_.size());
  for (size_t b = 0; b < layouts_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    const std::vector<size_t>& indices = layouts_[b].parameter_indices;
    int64_t elements = 0;
    for (size_t index : indices) elements += parameters_[index].numel();
    const int64_t shards = options_.shard_gradients ? communicator_.world_size() : 1;
    elements = (elements + shards - 1) / shards * shards;
    bucket.flat =
        torch::zeros({elements}, parameters_[indices.front()].options().requires_grad(false));
    if (options_.shard_gradients) {
      const int64_t slice = elements / shards;
      bucket.shard = options_.reduce_scatter
                         ? torch::zeros({slice}, bucket.flat.options())
                         : bucket.flat.narrow(0, communicator_.rank() * slice, slice);
    }
    bucket.views = views_into(b, bucket.flat);
    for (size_t slot = 0; slot < indices.size(); ++slot) {
      torch::Tensor& parameter = parameters_[indices[slot]];
      const torch::Tensor& view = bucket.views[slot];
      if (parameter.grad().defined()) view.copy_(parameter.grad());
      parameter.mutable_grad() = view;
      std::shared_ptr<torch::autograd::Node> accumulator =
          torch::autograd::impl::grad_accumulator(parameter);
      uintptr_t key =
          accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
              [this, b, slot](const torch::autograd::variable_list& outputs,
                              const torch::autograd::variable_list&) {
                on_gradient_accumulated(b, slot);
                return outputs;
              }));
      hooks_.emplace_back(std::move(accumulator), key);
    }
    bucket.ready.assign(indices.size(), false);
    bucket.pending = bucket.ready.size();
  }
}

std::vector<torch::Tensor> GradientBucketer::views_into(size_t b, const torch::Tensor& flat) const {
  std::vector<torch::Tensor> views;
  int64_t offset = 0;
  for (size_t index : layouts_[b].parameter_indices) {
    views.push_back(view_at(parameters_[index], flat, offset));
    offset += parameters_[index].numel();
  }
  return views;
}

GradientBucketer::~GradientBucketer() {
  for (auto& [accumulator, key] : hooks_) accumulator->del_post_hook(key);
}

void GradientBucketer::start_step() {
  std::lock_guard<std::mutex> lock(mutex_);
  torch::NoGradGuard no_grad;
  for (Bucket& bucket : buckets_) {
    bucket.flat.zero_();
    bucket.ready.assign(bucket.ready.size(), false);
    bucket.pending = bucket.ready.size();
    bucket.work.reset();
  }
  next_to_launch_ = 0;
}

void GradientBucketer::on_gradient_accumulated(size_t bucket_index, size_t slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  Bucket& bucket = buckets_[bucket_index];
  if (bucket.ready[slot]) return;  // a second backward without start_step: keep the first
  torch::Tensor& parameter = parameters_[layouts_[bucket_index].parameter_indices[slot]];
  const torch::Tensor& view = bucket.views[slot];
  if (!parameter.grad().defined() || parameter.grad().data_ptr() != view.data_ptr()) {
    torch::NoGradGuard no_grad;
    view.copy_(parameter.grad());  // .grad was replaced (set to none): back into the bucket
    parameter.mutable_grad() = view;
  }
  bucket.ready[slot] = true;
  --bucket.pending;
  if (options_.overlap) launch_ready_buckets();
}

void GradientBucketer::launch_ready_buckets() {
  if (next_to_launch_ == 0 && !buckets_.empty() && buckets_.front().pending == 0) {
    last_arrival_.arrival_unix_s = realtime_now_s();
    first_launch_ = std::chrono::steady_clock::now();
  }
  while (next_to_launch_ < buckets_.size() && buckets_[next_to_launch_].pending == 0) {
    const bool scatter = options_.reduce_scatter;
    metrics::NvtxRange range(nvtx_, scatter ? "reduce_scatter" : "allreduce",
                             layouts_[next_to_launch_].bytes);
    Bucket& bucket = buckets_[next_to_launch_++];
    bucket.work = scatter ? communicator_.reduce_scatter_sum_async(bucket.flat, bucket.shard)
                          : communicator_.allreduce_sum_async(bucket.flat);
  }
}

Status GradientBucketer::finish() {
  if (buckets_.empty()) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  torch::NoGradGuard no_grad;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    for (size_t slot = 0; slot < bucket.ready.size(); ++slot) {
      if (bucket.ready[slot]) continue;
      // Never produced this step: its view holds start_step's zeros.
      parameters_[layouts_[b].parameter_indices[slot]].mutable_grad() = bucket.views[slot];
      bucket.ready[slot] = true;
    }
    bucket.pending = 0;
  }
  launch_ready_buckets();
  const double world_size = communicator_.world_size();
  for (Bucket& bucket : buckets_) {
    if (Status waited = bucket.work->wait(); !waited) return waited;
    bucket.work.reset();
    (options_.reduce_scatter ? bucket.shard : bucket.flat).div_(world_size);
  }
  last_arrival_.span_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_launch_)
          .count();
  return Status::ok();
}

int64_t GradientBucketer::gradient_bytes() const {
  int64_t bytes = 0;
  for (const BucketLayout& layout : layouts_) bytes += layout.bytes;
  return bytes;
}

}  // namespace scalestudy::dist
