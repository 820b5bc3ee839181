// GradientBucketer: DDP's gradient averaging. Parameters are grouped into buckets of at
// most `bucket_cap_mb` in reverse registration order (the order backward produces their
// gradients; the first bucket is capped at min(`first_bucket_cap_mb`, `bucket_cap_mb`) so
// communication starts early, as in PyTorch's Reducer). Each parameter's .grad is a view
// into its bucket's flat buffer (c10d's gradient_as_bucket_view): backward accumulates
// straight into the bucket, and a post-hook on the parameter's gradient accumulator marks it
// ready; once every gradient of a bucket is in, the bucket's all-reduce starts while
// backward goes on (overlap). Buckets launch strictly in order, so every rank issues the
// same collectives in the same order. finish() waits for the outstanding all-reduces — the
// exposed communication — and divides each bucket by the world size in place: no copy in,
// no copy out. Whoever replaced a .grad (a set-to-none zero_grad) gets it copied into the
// bucket and the view back, once.
// With the self communicator (one rank, no process group) there is nothing to average: no
// hooks, no buffers, start_step() and finish() do nothing and .grad stays autograd's own
// (reduces() is false). One rank with a process group (Communicator::communicates()) runs
// the buckets as many ranks do.
// With `overlap` false all gradients form one bucket, reduced in finish() after backward.
// Each bucket's launch is an NVTX range `allreduce` (`reduce_scatter` under ZeRO's
// reduce-scatter; payload: the bucket's bytes) when a domain is given: on CPU the hooks
// run on the training thread, so it nests in `backward`,
// or in `comm_exposed` for the buckets finish() launches; on GPU, on autograd's device thread.
//
// Each step's arrival at the all-reduce — when its first bucket launches, every gradient of
// it ready and before any wait — is taken on the host's realtime clock (one clock per
// host), so ranks' arrivals compare and the rank the others waited for can be named.
//
// Thread-safety: the hooks run on autograd threads and take an internal lock; start_step(),
// finish() and the accessors are called by the training thread outside backward.
#pragma once

#include <torch/torch.h>

#include <chrono>
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
  // ZeRO: every bucket is padded to a multiple of the world size, and finish() leaves this
  // rank's slice of it averaged (gradient_shard): by reduce-scatter when `reduce_scatter`
  // (the rest of the bucket then keeps this rank's own, unreduced gradients), else by the
  // all-reduce (every slice averaged).
  bool shard_gradients = false;
  bool reduce_scatter = false;
};

// One step's all-reduce as this rank saw it (zeros before the first finish()).
struct StepArrival {
  double arrival_unix_s = 0;  // first bucket launched, on the host's realtime clock
  // From that launch until finish() had every bucket's result on the host: the whole
  // all-reduce where the communicator's wait blocks the host (gloo); on NCCL, whose wait
  // only orders streams, the host's part alone.
  double span_ms = 0;
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
  // Where the communicator communicates: points every trainable parameter's .grad at its
  // bucket and adds a post-hook to its gradient accumulator (removed again by the
  // destructor). One backward per step. `nvtx` (may be null: no ranges) must outlive the
  // bucketer.
  GradientBucketer(std::vector<torch::Tensor> parameters, Communicator& communicator,
                   BucketerOptions options, const metrics::NvtxDomain* nvtx = nullptr);
  ~GradientBucketer();
  GradientBucketer(const GradientBucketer&) = delete;
  GradientBucketer& operator=(const GradientBucketer&) = delete;

  // Zeroes the gradients (the buckets they view) and marks them not ready; call before each
  // backward instead of the optimizer's zero_grad.
  void start_step();
  // Waits for every bucket's all-reduce (launching those backward did not complete; a
  // gradient it never produced stays zero) and leaves the averages in .grad. Under
  // reduce_scatter only gradient_shard() holds averages: .grad keeps this rank's own
  // gradients, which nothing may read as the model's.
  Status finish();

  // False with the self communicator: the gradients are left to autograd and the optimizer.
  bool reduces() const { return !buckets_.empty(); }
  // The plan (also with the self communicator, where it is not executed).
  const std::vector<BucketLayout>& buckets() const { return layouts_; }
  int64_t gradient_bytes() const;
  // The last finish()'s step; read by the training thread after finish().
  const StepArrival& last_arrival() const { return last_arrival_; }

  // With shard_gradients, where the bucketer reduces: bucket b's padded length, this
  // rank's averaged slice of it after finish() (a tensor whose storage never changes), and
  // views of the bucket's parameters (in layout order) into `flat`, a tensor of that length
  // laid out like the bucket.
  int64_t bucket_elements(size_t b) const { return buckets_[b].flat.numel(); }
  const torch::Tensor& gradient_shard(size_t b) const { return buckets_[b].shard; }
  std::vector<torch::Tensor> views_into(size_t b, const torch::Tensor& flat) const;

 private:
  struct Bucket {
    torch::Tensor flat;                // the bucket's contiguous buffer
    torch::Tensor shard;               // shard_gradients: this rank's slice, averaged
    std::vector<torch::Tensor> views;  // each parameter's gradient in `flat`
    std::vector<bool> ready;
    size_t pending = 0;  // gradients still missing this step
    std::unique_ptr<CollectiveWork> work;
  };

  void allocate_buckets();
  void on_gradient_accumulated(size_t bucket_index, size_t slot);
  void launch_ready_buckets();  // caller holds mutex_

  std::vector<torch::Tensor> parameters_;
  Communicator& communicator_;
  BucketerOptions options_;
  const metrics::NvtxDomain* nvtx_;
  std::vector<BucketLayout> layouts_;
  std::vector<Bucket> buckets_;
  // Per hooked parameter, in bucket order: its gradient accumulator (kept alive, as the
  // parameter holds it weakly) and the key of our post-hook on it.
  std::vector<std::pair<std::shared_ptr<torch::autograd::Node>, uintptr_t>> hooks_;
  size_t next_to_launch_ = 0;
  std::chrono::steady_clock::time_point first_launch_;  // of the current step
  StepArrival last_arrival_;
  std::mutex mutex_;
};

}  // namespace scalestudy::dist
