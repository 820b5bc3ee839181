#include "harness/dist/tensor_layout.hpp"

namespace scalestudy::dist {

bool is_dense_in_own_layout(const torch::Tensor& tensor) {
  return tensor.is_contiguous(tensor.suggest_memory_format());
}

}  // namespace scalestudy::dist
