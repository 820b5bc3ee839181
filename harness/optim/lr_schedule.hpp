// Learning-rate schedules as a pure function of the global step, so every rank (and a
// resumed run) computes the same rate without state. A schedule is a decay shape
// (constant, step, multistep, cosine) times an optional linear warm-up:
//   epoch        = step / steps_per_epoch (0-based, integer division)
//   constant     base_lr
//   step         base_lr * gamma^(epoch / step_size_epochs)
//   multistep    base_lr * gamma^(number of milestones_epochs <= epoch)
//   cosine       base_lr * (1 + cos(pi * t / (T - W))) / 2, t = clamp(step - W, 0, T - W),
//                T = total_epochs * steps_per_epoch: decays from base_lr after the
//                warm-up to 0 at step T
//   warm-up      for step < W: multiply by (step + 1) / W, where W = warmup_steps, or
//                round(warmup_epochs * steps_per_epoch) when warmup_steps is 0
// Plain value type; lr_at is thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::optim {

enum class DecayKind { kConstant, kStep, kMultiStep, kCosine };

struct LrSchedule {
  double base_lr = 0.1;
  DecayKind decay = DecayKind::kConstant;
  int64_t step_size_epochs = 30;           // kStep
  std::vector<int64_t> milestones_epochs;  // kMultiStep, ascending
  double gamma = 0.1;                      // kStep, kMultiStep
  int64_t total_epochs = 0;                // kCosine
  double warmup_epochs = 0;                // fractions allowed
  int64_t warmup_steps = 0;                // takes precedence over warmup_epochs when > 0
};

// "constant", "step", "multistep", "cosine"; the error lists them.
Result<DecayKind> parse_decay_kind(const std::string& name);

// Checks the fields the decay kind uses (positive step size, ascending milestones, total
// epochs for cosine, non-negative warm-up shorter than a cosine run ...).
Status validate_schedule(const LrSchedule& schedule);

int64_t warmup_steps(const LrSchedule& schedule, int64_t steps_per_epoch);

// The rate for 0-based global `step`; steps_per_epoch > 0. Assumes a validated schedule.
double lr_at(const LrSchedule& schedule, int64_t step, int64_t steps_per_epoch);

}  // namespace scalestudy::optim
