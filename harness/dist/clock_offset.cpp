#include "harness/dist/clock_offset.hpp"

#include <chrono>
#include <limits>
#include <vector>

namespace scalestudy::dist {
namespace {

constexpr int kRounds = 5;

}  // namespace

double realtime_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Result<double> measure_clock_offset_s(Communicator& communicator) {
  double best_bracket_s = std::numeric_limits<double>::infinity();
  double offset_s = 0;
  for (int round = 0; round < kRounds; ++round) {
    if (Status synced = communicator.barrier(); !synced) return synced;
    const double before_s = realtime_now_s();
    std::vector<double> rank0_time = {communicator.rank() == 0 ? realtime_now_s() : 0.0};
    if (Status reduced = communicator.allreduce_scalars(rank0_time, ScalarReduction::kMax);
        !reduced) {
      return reduced;
    }
    const double after_s = realtime_now_s();
    if (after_s - before_s < best_bracket_s) {
      best_bracket_s = after_s - before_s;
      offset_s = rank0_time[0] - (before_s + after_s) / 2;
    }
  }
  return communicator.rank() == 0 ? 0.0 : offset_s;
}

}  // namespace scalestudy::dist
