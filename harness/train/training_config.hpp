// TrainingConfig: the training loop's flags (epochs, batch, optimizer, schedule, DDP
// bucketing, instrumentation), declared once and resolved into typed values. Resolving
// checks ranges and names the offending flag. Plain value type.
#pragma once

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"
#include "harness/optim/lr_schedule.hpp"
#include "harness/optim/optimizer_factory.hpp"
#include "harness/train/flags.hpp"

namespace scalestudy::train {

struct TrainingConfig {
  int64_t epochs = 1;
  int64_t steps_per_epoch_cap = 0;  // 0: the whole shard
  int64_t batch_size = 0;           // per rank
  int64_t eval_batch_size = 0;      // per rank
  std::string precision = "fp32";
  uint64_t seed = 0;
  optim::OptimizerConfig optimizer;
  optim::LrSchedule schedule;
  double bucket_cap_mb = 25;
  bool overlap = true;
  bool instrument = true;
  int64_t measure_warmup_steps = 5;
  int64_t log_interval = 10;
  std::string dump_params_path;  // hidden test flag: rank 0 saves the final parameters
};

void declare_training_flags(Flags& flags);
Result<TrainingConfig> resolve_training_config(const Flags& flags);

}  // namespace scalestudy::train
