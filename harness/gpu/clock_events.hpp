// NVML's clock-event (throttle) reasons: the bits of nvmlDeviceGetCurrentClocksEventReasons
// (nvmlDeviceGetCurrentClocksThrottleReasons on older drivers), named as the report prints
// them. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace scalestudy::gpu {

// "sw power cap, hw thermal slowdown": the names of the bits set in `mask`, lowest bit
// first; an unknown bit as "reason 0x...". Empty for 0.
std::string clock_event_names(uint64_t mask);

// The GPU had no work: its clock drops by design, which says nothing about throttling.
inline constexpr uint64_t kGpuIdleEvent = 0x1;

}  // namespace scalestudy::gpu
