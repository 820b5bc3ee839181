#include "workloads/ddpm/seeded_generator.hpp"

namespace scalestudy::ddpm {

at::Generator seeded_generator(torch::Device device, uint64_t seed) {
  // A clone of the device's default generator has the device's engine type (CPU or CUDA)
  // without naming it, so this file needs no CUDA headers.
  at::Generator generator = at::globalContext().defaultGenerator(device).clone();
  generator.set_current_seed(seed);
  return generator;
}

}  // namespace scalestudy::ddpm
