// Identical models on every rank. broadcast_module_state sends a module's parameters and
// buffers from rank 0, as DDP does at construction. broadcast_buffers sends the buffers
// alone (BatchNorm's running statistics), one collective per dtype over a flattened copy;
// the training loop calls it before every validation pass, so all ranks evaluate rank 0's
// model. In training mode BatchNorm normalises with batch statistics and rank 0's running
// statistics evolve from its own batches only, so this gives the same buffers as DDP's
// broadcast before every forward, at one collective per epoch instead of one per step.
// Collective: every rank calls them at the same point. Not thread-safe (mutates the module).
#pragma once

#include <torch/torch.h>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"

namespace scalestudy::dist {

Status broadcast_module_state(torch::nn::Module& module, Communicator& communicator);
Status broadcast_buffers(torch::nn::Module& module, Communicator& communicator);

}  // namespace scalestudy::dist
