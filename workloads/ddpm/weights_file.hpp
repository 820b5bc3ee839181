// A module's weights in one file (torch::save's archive format), keyed by the parameters'
// and buffers' dotted names. Loading checks the stored names, shapes and count against
// the module, so weights trained with other model flags are an error naming the first
// mismatch instead of tensors silently resized (torch::load's behaviour).
// Not synchronised: no other thread may use the module meanwhile.
#pragma once

#include <torch/torch.h>

#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::ddpm {

Status save_weights(const torch::nn::Module& module, const std::string& path);
// Copies the stored values into the module's tensors in place (on their devices).
Status load_weights(torch::nn::Module& module, const std::string& path);

}  // namespace scalestudy::ddpm
