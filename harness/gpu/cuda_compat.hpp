// CUDA-side LibTorch version differences (the CPU-side ones are in
// harness/compat/torch_compat.hpp). Only CUDA sources include this. Stateless.
#pragma once

#include <c10/cuda/CUDACachingAllocator.h>

#include <cstddef>
#include <cstdint>

namespace scalestudy::compat {

// Peak bytes the caching allocator has handed out on `device` since the last reset.
// DeviceStats moved from c10::cuda::CUDACachingAllocator to c10::CachingDeviceAllocator
// in 2.5 (and the index type from int to DeviceIndex); the free function and the array
// layout stayed, with StatType::AGGREGATE at index 0 in every release.
inline int64_t allocator_peak_allocated_bytes(int device) {
  constexpr size_t kAggregateStat = 0;
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  return stats.allocated_bytes[kAggregateStat].peak;
}

inline int64_t allocator_peak_reserved_bytes(int device) {
  constexpr size_t kAggregateStat = 0;
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  return stats.reserved_bytes[kAggregateStat].peak;
}

inline void allocator_reset_peaks(int device) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
}

}  // namespace scalestudy::compat
