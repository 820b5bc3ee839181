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

// The bits that lower the clocks on their own (not idle, nor a setting someone chose).
inline constexpr uint64_t kSlowdownEvents = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

}  // namespace scalestudy::gpu
