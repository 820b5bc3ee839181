// How far a tensor is from a reference: the largest absolute difference over the largest
// magnitude of the reference, both in float32 (the numerics tests' tolerance measure).
#pragma once

#include <torch/torch.h>

namespace scalestudy::testing {

inline double relative_error(const torch::Tensor& value, const torch::Tensor& reference) {
  const double scale = reference.abs().max().item<double>();
  return (value.to(torch::kFloat) - reference.to(torch::kFloat)).abs().max().item<double>() / scale;
}

}  // namespace scalestudy::testing
