// The clock-drop rule: a GPU whose SM clock fell by kClockDropFraction or more of its
// highest reading during the measured steps ran slower than it could; the warning names
// who, how far, and the clock-event (throttle) reasons NVML gave. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

namespace scalestudy::results {

// 5%: boost clocks move in 15 MHz bins and wander a few bins on an idle-free GPU; a
// throttle costs hundreds of MHz.
inline constexpr double kClockDropFraction = 0.05;

// "rank 0 (cuda:0): SM clock fell from 1980 to 1410 MHz during the measured steps: hw
// thermal slowdown", or nothing where the clock held (or was not read). `reasons`: the
// clock-event names seen (gpu::clock_event_names); "gpu idle" is no reason for a drop.
std::optional<std::string> clock_drop_warning(const std::string& who, std::optional<double> max_mhz,
                                              std::optional<double> min_mhz,
                                              const std::string& reasons);

}  // namespace scalestudy::results
