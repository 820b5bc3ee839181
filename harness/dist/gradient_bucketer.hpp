// GradientBucketer: DDP's gradient averaging. Parameters are grouped into buckets of at
// most `bucket_cap_mb` in reverse registration order (the order backward produces their
// gradients; the first bucket is capped at min(`first_bucket_cap_mb`, `bucket_cap_mb`) so
// communication starts early, as in PyTorch's Reducer). A hook on each parameter copies its
// gradient into the bucket's flat buffer during backward; once every gradient of a bucket is in,
// the bucket's all-reduce starts while backward goes on (overlap). Buckets launch strictly in
// order, so every rank issues the same collectives in the same order.
// finish() waits for the outstanding all-reduces — the exposed communication — and writes
// the averaged gradients (sum / world size) back into each parameter's .grad.
// With `overlap` false all gradients form one bucket, reduced in finish() after backward.
// Each bucket's launch is an NVTX range `allreduce` (payload: the bucket's bytes) when a
// domain is given: on CPU the hooks run on the training thread, so it nests in `backward`,
// or in `comm_exposed` for the buckets finish() launches; on GPU, on autograd's device thread.
//
// Thread-safety: the hooks run on autograd threads and take an internal lock; start_step(),
// finish() and the accessors are called by the training thread outside backward.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <mutex>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/metrics/nvtx_domain.hpp"

namespace scalestudy::dist {

struct BucketerOptions {
  double bucket_cap_mb = 25.0;
  double first_bucket_cap_mb = 1.0;
  bool overlap = true;
};

struct BucketLayout {
  std::vector<size_t> parameter_indices;  // into the constructor's parameter list
  int64_t bytes = 0;
};

// The bucket plan alone (no hooks, no communicator), for the bucketer and for tests.
std::vector<BucketLayout> plan_buckets(const std::vector<torch::Tensor>& parameters,
                                       const BucketerOptions& options);

class GradientBucketer {
 public:
  // Registers a gradient hook on every parameter that requires grad (removed again by
  // the destructor). Gradients are replaced, not accumulated: one backward per step.
  // `nvtx` (may be null: no ranges) must outlive the bucketer.
  GradientBucketer(std::vector<torch::Tensor> parameters, Communicator& communicator,
                   BucketerOptions options, const metrics::NvtxDomain* nvtx = nullptr);
  ~GradientBucketer();
  GradientBucketer(const GradientBucketer&) = delete;
  GradientBucketer& operator=(const GradientBucketer&) = delete;

  // Marks every gradient not ready; call before each backward.
  void start_step();
  // Waits for every bucket's all-reduce (launching those backward did not complete, with
  // zeros for gradients it never produced) and writes the averages into .grad.
  Status finish();

  const std::vector<BucketLayout>& buckets() const { return layouts_; }
  int64_t gradient_bytes() const;

 private:
  struct Bucket {
    torch::Tensor flat;            // the bucket's contiguous buffer
    std::vector<int64_t> offsets;  // element offset of each parameter in `flat`
    std::vector<bool> ready;
    size_t pending = 0;  // gradients still missing this step
    std::unique_ptr<CollectiveWork> work;
  };

  void on_gradient(size_t bucket_index, size_t slot, const torch::Tensor& gradient);
  void launch_ready_buckets();  // caller holds mutex_

  std::vector<torch::Tensor> parameters_;
  Communicator& communicator_;
  BucketerOptions options_;
  const metrics::NvtxDomain* nvtx_;
  std::vector<BucketLayout> layouts_;
  std::vector<Bucket> buckets_;
  std::vector<unsigned> hook_handles_;  // in bucket order, as registered
  size_t next_to_launch_ = 0;
  std::mutex mutex_;
};

}  // namespace scalestudy::dist
