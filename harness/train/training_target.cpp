#include "harness/train/training_target.hpp"

#include <cstdio>

namespace scalestudy::train {

const char* TrainingTarget::summary_key() const {
  return metric == Metric::kValAccuracy ? "target_val_accuracy" : "target_val_loss";
}

bool TrainingTarget::reached(double val_loss, std::optional<double> val_acc) const {
  if (metric == Metric::kValLoss) return val_loss <= value;
  return val_acc && *val_acc >= value;
}

std::string TrainingTarget::describe() const {
  char text[64];
  if (metric == Metric::kValAccuracy) {
    std::snprintf(text, sizeof text, "val accuracy >= %.1f%%", value * 100);
  } else {
    std::snprintf(text, sizeof text, "val loss <= %.3f", value);
  }
  return text;
}

void declare_target_flags(Flags& flags) {
  flags
      .declare("target-val-accuracy", "0",
               "record when global validation accuracy first reaches this fraction; 0: none")
      .number(0, 1);
  flags
      .declare("target-val-loss", "0",
               "record when global validation loss first falls to this value; 0: none")
      .number(0);
}

Result<std::optional<TrainingTarget>> resolve_target(const Flags& flags) {
  auto accuracy = flags.get_double("target-val-accuracy");
  if (!accuracy) return accuracy.status();
  auto loss = flags.get_double("target-val-loss");
  if (!loss) return loss.status();
  if (*accuracy > 0 && *loss > 0) {
    return Status::error("--target-val-accuracy and --target-val-loss: give one target");
  }
  if (*accuracy > 0)
    return std::optional<TrainingTarget>({TrainingTarget::Metric::kValAccuracy, *accuracy});
  if (*loss > 0) return std::optional<TrainingTarget>({TrainingTarget::Metric::kValLoss, *loss});
  return std::optional<TrainingTarget>();
}

}  // namespace scalestudy::train
