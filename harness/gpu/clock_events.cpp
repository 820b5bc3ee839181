#include "harness/gpu/clock_events.hpp"

#include <cstdio>
#include <utility>

namespace scalestudy::gpu {

std::string clock_event_names(uint64_t mask) {
  // nvml.h's nvmlClocksEventReason* constants.
  static constexpr std::pair<uint64_t, const char*> kNames[] = {
      {0x1, "gpu idle"},
      {0x2, "applications clocks setting"},
      {0x4, "sw power cap"},
      {0x8, "hw slowdown"},
      {0x10, "sync boost"},
      {0x20, "sw thermal slowdown"},
      {0x40, "hw thermal slowdown"},
      {0x80, "hw power brake slowdown"},
      {0x100, "display clock setting"},
  };
  std::string names;
  auto add = [&names](const std::string& name) { names += (names.empty() ? "" : ", ") + name; };
  for (uint64_t bit = 1; bit != 0 && bit <= mask; bit <<= 1) {
    if ((mask & bit) == 0) continue;
    const char* name = nullptr;
    for (const auto& [value, text] : kNames) {
      if (value == bit) name = text;
    }
    if (name != nullptr) {
      add(name);
    } else {
      char unknown[32];
      std::snprintf(unknown, sizeof(unknown), "reason 0x%llx",
                    static_cast<unsigned long long>(bit));
      add(unknown);
    }
  }
  return names;
}

}  // namespace scalestudy::gpu
