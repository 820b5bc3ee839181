// seconds_since: the seconds elapsed on the steady clock since `start`, as the training
// loop and the ceiling calibration time what they do (epochs, checkpoint writes, GEMMs).
// Header-only; it reads the clock only, so any thread may call it.
#pragma once

#include <chrono>

namespace scalestudy::train {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace scalestudy::train
