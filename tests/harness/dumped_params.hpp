// Test helper: compares parameter dumps written by `scalestudy-train --dump-params`. Header-only;
// include tests/harness/torch_doctest.hpp first.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <vector>

namespace scalestudy::testing {

inline std::vector<torch::Tensor> load_params(const std::string& path) {
  std::vector<torch::Tensor> tensors;
  torch::load(tensors, path);
  return tensors;
}

// Largest element-wise absolute difference between two dumps of the same model.
inline double max_difference(const std::vector<torch::Tensor>& a,
                             const std::vector<torch::Tensor>& b) {
  REQUIRE(a.size() == b.size());
  double difference = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    difference = std::max(difference, (a[i] - b[i]).abs().max().item<double>());
  }
  return difference;
}

}  // namespace scalestudy::testing
