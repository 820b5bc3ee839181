// Whether a collective may treat a tensor as one flat run of numel() elements: it must be
// dense in its own memory format — contiguous, or channels_last for NHWC weights — as
// c10d's NCCL backend checks with the tensor's suggested memory format. Every rank holds
// the same layout, so the bytes line up. Stateless; thread-safe.
#pragma once

#include <torch/torch.h>

namespace scalestudy::dist {

bool is_dense_in_own_layout(const torch::Tensor& tensor);

}  // namespace scalestudy::dist
