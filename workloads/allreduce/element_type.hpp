// --dtype: the element types a collective sweep reduces, named as the collectives table
// records them (float32, bfloat16, float16), each with its unit roundoff (half the
// distance from 1 to the next value), which bounds the rounding the correctness check
// allows. Whether the transport reduces a type is the transport's to say. Thread-safe.
#pragma once

#include <torch/torch.h>

#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::collectives {

struct ElementType {
  std::string name;
  torch::ScalarType scalar_type = torch::kFloat32;
  double unit_roundoff = 0;
  int64_t bytes() const { return static_cast<int64_t>(c10::elementSize(scalar_type)); }
};

Result<ElementType> parse_element_type(const std::string& name);

}  // namespace scalestudy::collectives
