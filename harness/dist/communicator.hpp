// Communicator: the collectives a data-parallel run needs, over torch tensors and
// independent of the transport. ProcessGroupCommunicator implements it over a c10d process
// group (gloo on the CPU, NCCL on the GPU); SelfCommunicator is the world of one without one.
//
// Every rank must issue the same collectives in the same order (as with c10d process
// groups). Every wait is bounded by the communicator's timeout; a peer that died or hung
// turns into an error Status ("peer rank died or timed out: ...") instead of a hang.
// A Communicator is used from one thread at a time, except that allreduce_sum_async may be
// called from autograd hook threads while the caller holds the bucketer's lock.
#pragma once

#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::dist {

// An in-flight collective. wait() returns once its result may be used by this thread: on
// the CPU it blocks until the collective finished (bounded by the timeout); on a CUDA
// device it makes the caller's current stream wait for it, without blocking the host.
class CollectiveWork {
 public:
  virtual ~CollectiveWork() = default;
  virtual Status wait() = 0;
};

// A collective that already ended with `status`: nothing to do, or a start that failed.
std::unique_ptr<CollectiveWork> finished_work(Status status = Status::ok());

enum class ScalarReduction { kSum, kMax, kMin };

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // "gloo", "nccl", or "none" for a world of one without a process group.
  virtual std::string backend() const = 0;
  // The process group's settings for the run's provenance: "process_group" (the backend)
  // and process_group_* keys (docs/run-database.md).
  virtual std::map<std::string, std::string> settings() const = 0;
  // Whether collectives go through a backend: any world of several ranks, and a world of
  // one given a process group (--one-rank-process-group); not the self communicator.
  bool communicates() const { return world_size() > 1 || backend() != "none"; }

  // Starts an in-place sum of `tensor` across ranks; the tensor must stay alive and
  // untouched until the work's wait() returned.
  virtual std::unique_ptr<CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) = 0;
  // Overwrites `tensor` with root's copy on every rank.
  virtual Status broadcast(const torch::Tensor& tensor, int root_rank) = 0;

  // ZeRO's collectives, for a communicator with a process group (the others fail them).
  // reduce_scatter_sum_async starts the sum across ranks of `input` (world_size · n
  // elements), of which this rank receives its n-element slice (rank · n onwards) in
  // `output`. all_gather_async starts gathering every rank's `input` (n elements) into
  // `output` (world_size · n) in rank order on every rank; `input` may be output's own slice
  // at rank · n (in place). Tensors stay alive and untouched until the work's wait().
  virtual std::unique_ptr<CollectiveWork> reduce_scatter_sum_async(const torch::Tensor& input,
                                                                   const torch::Tensor& output);
  virtual std::unique_ptr<CollectiveWork> all_gather_async(const torch::Tensor& output,
                                                           const torch::Tensor& input);
  // Whether reduce_scatter_sum_async works: NCCL's does; gloo's from some LibTorch release
  // on. The first call asks the backend with a collective, so every rank calls it at the
  // same point; a failure of that collective (a peer) is an error, not a "no".
  virtual Result<bool> supports_reduce_scatter() { return false; }
  virtual Status barrier() = 0;

  // Reduces a few doubles (losses, counts, times) element-wise across ranks, in place.
  Status allreduce_scalars(std::vector<double>& values, ScalarReduction reduction);

 protected:
  // Blocking reduction of a float64 CPU tensor; the backend's MAX/MIN/SUM.
  virtual Status allreduce_tensor(const torch::Tensor& tensor, ScalarReduction reduction) = 0;
};

// The world of one: every collective is the identity. Backend "none".
class SelfCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  std::string backend() const override { return "none"; }
  std::map<std::string, std::string> settings() const override {
    return {{"process_group", "none"}};
  }
  std::unique_ptr<CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override;
  Status broadcast(const torch::Tensor& tensor, int root_rank) override;
  Status barrier() override { return Status::ok(); }

 protected:
  Status allreduce_tensor(const torch::Tensor& tensor, ScalarReduction reduction) override {
    return Status::ok();
  }
};

}  // namespace scalestudy::dist
