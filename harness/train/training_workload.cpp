// TrainingWorkload's hooks into the driver: its flags, their check, and run(), one TrainingLoop.
#include "harness/train/training_workload.hpp"

#include "harness/train/training_config.hpp"
#include "harness/train/training_loop.hpp"

namespace scalestudy::train {

void TrainingWorkload::declare_flags(Flags& flags) const {
  declare_training_flags(flags);
  task_.declare_flags(flags);
}

Status TrainingWorkload::validate(const Flags& flags) const {
  auto config = resolve_training_config(flags);
  if (!config) return config.status();
  return task_.validate(flags);
}

Status TrainingWorkload::run(RunContext& context) {
  auto config = resolve_training_config(context.flags);
  if (!config) return config.status();
  TrainingLoop run(task_, context, std::move(*config));
  return run.run();
}

}  // namespace scalestudy::train
