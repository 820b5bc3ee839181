// ParameterShards: ZeRO stage 1's partition of a data-parallel model (Rajbhandari et al.
// 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", Pos).
// Every parameter moves into one flat buffer per gradient bucket, laid out exactly like the
// bucket (same order, same padding to a multiple of the world size), and stays a view into
// it. Rank r owns the r-th slice of every buffer: shards() are leaf tensors viewing those
// slices, each with the bucket's averaged gradient slice as its .grad, so any optimizer
// stepped over shards() keeps state for 1/N of the parameters and updates only them, in
// place. gather() then all-gathers every buffer, in place, so every rank holds the whole
// updated model again. Optimizer arithmetic is element-wise, so a shard's update is the
// one the unsharded optimizer makes to the same elements.
// A checkpoint load copies into the parameters (training_checkpoint.cpp), so they stay
// views of the buffers. Used by the training thread only.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/dist/gradient_bucketer.hpp"

namespace scalestudy::dist {

class ParameterShards {
 public:
  // `bucketer` reduces (several ranks, or a process group) with shard_gradients; its
  // parameters are `parameters` (moved into the buffers here). It and `communicator`
  // outlive the shards: each shard's .grad is the bucketer's gradient slice.
  ParameterShards(const std::vector<torch::Tensor>& parameters, const GradientBucketer& bucketer,
                  Communicator& communicator);

  // This rank's slices, one per bucket, for the optimizer.
  const std::vector<torch::Tensor>& shards() const { return shards_; }
  // After the optimizer stepped: every rank's slices into every rank's buffers (every
  // bucket's gather started before the first is waited for).
  Status gather();

 private:
  Communicator& communicator_;
  std::vector<torch::Tensor> flats_;   // one per bucket
  std::vector<torch::Tensor> shards_;  // leaf views of this rank's slice of each
};

}  // namespace scalestudy::dist
