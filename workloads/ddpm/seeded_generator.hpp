// A random generator of its own for `device`, seeded explicitly: the diffusion steps and
// noise each rank draws come from streams that do not depend on (or disturb) torch's
// global generator, which seeds the weights identically on every rank.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace scalestudy::ddpm {

at::Generator seeded_generator(torch::Device device, uint64_t seed);

}  // namespace scalestudy::ddpm
