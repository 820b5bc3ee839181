// Identical initial weights on every rank: broadcasts a module's parameters and buffers
// from rank 0, as DDP does at construction. Collective: every rank calls it at the same
// point. Not thread-safe (mutates the module).
#pragma once

#include <torch/torch.h>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"

namespace scalestudy::dist {

Status broadcast_module_state(torch::nn::Module& module, Communicator& communicator);

}  // namespace scalestudy::dist
