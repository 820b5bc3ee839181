#include "harness/optim/lr_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace scalestudy::optim {

Result<DecayKind> parse_decay_kind(const std::string& name) {
  if (name == "constant") return DecayKind::kConstant;
  if (name == "step") return DecayKind::kStep;
  if (name == "multistep") return DecayKind::kMultiStep;
  if (name == "cosine") return DecayKind::kCosine;
  return Status::error("unknown lr schedule '" + name +
                       "'; valid: constant, step, multistep, cosine");
}

Status validate_schedule(const LrSchedule& schedule) {
  if (!(schedule.base_lr >= 0)) return Status::error("lr must be >= 0");
  if (schedule.warmup_epochs < 0 || schedule.warmup_steps < 0) {
    return Status::error("warm-up length must be >= 0");
  }
  switch (schedule.decay) {
    case DecayKind::kConstant:
      break;
    case DecayKind::kStep:
      if (schedule.step_size_epochs <= 0) return Status::error("lr step_size_epochs must be > 0");
      break;
    case DecayKind::kMultiStep:
      if (!std::is_sorted(schedule.milestones_epochs.begin(), schedule.milestones_epochs.end())) {
        return Status::error("lr milestones_epochs must be ascending");
      }
      break;
    case DecayKind::kCosine:
      if (schedule.total_epochs <= 0) return Status::error("cosine lr needs total_epochs > 0");
      if (schedule.warmup_epochs >= static_cast<double>(schedule.total_epochs)) {
        return Status::error("cosine lr: warmup_epochs must be shorter than total_epochs");
      }
      break;
  }
  return Status::ok();
}

int64_t warmup_steps(const LrSchedule& schedule, int64_t steps_per_epoch) {
  if (schedule.warmup_steps > 0) return schedule.warmup_steps;
  return std::llround(schedule.warmup_epochs * static_cast<double>(steps_per_epoch));
}

double lr_at(const LrSchedule& schedule, int64_t step, int64_t steps_per_epoch) {
  const int64_t epoch = step / steps_per_epoch;
  const int64_t warmup = warmup_steps(schedule, steps_per_epoch);
  double decay = 1.0;
  switch (schedule.decay) {
    case DecayKind::kConstant:
      break;
    case DecayKind::kStep:
      decay = std::pow(schedule.gamma, static_cast<double>(epoch / schedule.step_size_epochs));
      break;
    case DecayKind::kMultiStep: {
      const auto passed = std::upper_bound(schedule.milestones_epochs.begin(),
                                           schedule.milestones_epochs.end(), epoch) -
                          schedule.milestones_epochs.begin();
      decay = std::pow(schedule.gamma, static_cast<double>(passed));
      break;
    }
    case DecayKind::kCosine: {
      const int64_t decay_steps = schedule.total_epochs * steps_per_epoch - warmup;
      if (decay_steps <= 0) break;
      const int64_t progress = std::clamp<int64_t>(step - warmup, 0, decay_steps);
      decay =
          0.5 *
          (1.0 + std::cos(M_PI * static_cast<double>(progress) / static_cast<double>(decay_steps)));
      break;
    }
  }
  const double warmup_factor =
      step < warmup ? static_cast<double>(step + 1) / static_cast<double>(warmup) : 1.0;
  return schedule.base_lr * decay * warmup_factor;
}

}  // namespace scalestudy::optim
