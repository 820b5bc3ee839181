// TrainingTarget: the validation figure a run races to (--target-val-accuracy or
// --target-val-loss), for time-to-accuracy: the first epoch whose global validation reaches
// it is the run's time to target (summary keys time_to_target_s, time_to_target_epoch;
// docs/run-database.md). Declared and resolved with the training flags. Plain value type.
#pragma once

#include <optional>
#include <string>

#include "harness/core/status.hpp"
#include "harness/train/flags.hpp"

namespace scalestudy::train {

struct TrainingTarget {
  enum class Metric { kValAccuracy, kValLoss };
  Metric metric = Metric::kValAccuracy;
  double value = 0;  // accuracy as a fraction; loss as the task computes it

  // The summary key holding the target: "target_val_accuracy" or "target_val_loss".
  const char* summary_key() const;
  // Accuracy at or above the target; loss at or below it.
  bool reached(double val_loss, std::optional<double> val_acc) const;
  // "val accuracy >= 85.0%", "val loss <= 0.400".
  std::string describe() const;
};

void declare_target_flags(Flags& flags);
// nullopt when neither flag is set (0); an error when both are.
Result<std::optional<TrainingTarget>> resolve_target(const Flags& flags);

}  // namespace scalestudy::train
