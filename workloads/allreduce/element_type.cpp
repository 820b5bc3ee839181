#include "workloads/allreduce/element_type.hpp"

#include <cmath>

namespace scalestudy::collectives {

Result<ElementType> parse_element_type(const std::string& name) {
  // Significand bits (with the implicit one): 24, 8 and 11; the roundoff is 2^-bits.
  if (name == "float32") return ElementType{name, torch::kFloat32, std::ldexp(1.0, -24)};
  if (name == "bfloat16") return ElementType{name, torch::kBFloat16, std::ldexp(1.0, -8)};
  if (name == "float16") return ElementType{name, torch::kFloat16, std::ldexp(1.0, -11)};
  return Status::error("--dtype: '" + name + "' is not one of float32, bfloat16, float16");
}

}  // namespace scalestudy::collectives
