// Communicator: the collectives a data-parallel run needs, over torch tensors and
// independent of the transport. GlooCommunicator (CPU) implements it over c10d; the NCCL
// one (GPU) goes behind the same interface; SelfCommunicator is the world of one.
//
// Every rank must issue the same collectives in the same order (as with c10d process
// groups). Every wait is bounded by the communicator's timeout; a peer that died or hung
// turns into an error Status ("peer rank died or timed out: ...") instead of a hang.
// A Communicator is used from one thread at a time, except that allreduce_sum_async may be
// called from autograd hook threads while the caller holds the bucketer's lock.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::dist {

// An in-flight collective. wait() blocks until it finished (bounded by the timeout).
class CollectiveWork {
 public:
  virtual ~CollectiveWork() = default;
  virtual Status wait() = 0;
};

enum class ScalarReduction { kSum, kMax, kMin };

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // "gloo", "nccl", or "none" for a world of one.
  virtual std::string backend() const = 0;

  // Starts an in-place sum of `tensor` across ranks; the tensor must stay alive and
  // untouched until the work's wait() returned.
  virtual std::unique_ptr<CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) = 0;
  // Overwrites `tensor` with root's copy on every rank.
  virtual Status broadcast(const torch::Tensor& tensor, int root_rank) = 0;
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
  std::unique_ptr<CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override;
  Status broadcast(const torch::Tensor& tensor, int root_rank) override;
  Status barrier() override { return Status::ok(); }

 protected:
  Status allreduce_tensor(const torch::Tensor& tensor, ScalarReduction reduction) override {
    return Status::ok();
  }
};

}  // namespace scalestudy::dist
