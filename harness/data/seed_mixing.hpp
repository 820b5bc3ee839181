// SplitMix64's finaliser, used to derive independent random streams from (seed, epoch,
// rank, batch) tuples: nearby inputs give unrelated outputs. Pure; thread-safe.
#pragma once

#include <cstdint>

namespace scalestudy::data {

inline uint64_t mix_seed(uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

}  // namespace scalestudy::data
