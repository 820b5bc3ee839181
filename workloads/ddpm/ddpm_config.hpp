// DdpmConfig: the DDPM workload's own flags (size preset, data, UNet width, noise schedule,
// sampling and checkpoint), declared once and resolved into typed values; the training
// loop's flags (epochs, batch, optimizer ...) are TrainingConfig's. Resolving checks
// ranges and names the offending flag. Plain value type.
#pragma once

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"
#include "harness/train/flags.hpp"
#include "workloads/ddpm/noise_schedule.hpp"
#include "workloads/ddpm/size_preset.hpp"
#include "workloads/ddpm/unet.hpp"

namespace scalestudy::ddpm {

struct DdpmConfig {
  SizePreset preset;
  UNetConfig unet;  // image size and channel multipliers from the preset
  BetaSchedule beta_schedule = BetaSchedule::kLinear;
  int64_t timesteps = 1000;
  std::string dataset;  // an IDX (MNIST family) data set: one channel
  std::string data_root;
  int64_t train_samples = 0;  // 0: the whole split
  int64_t val_samples = 0;
  int64_t sample_count = 0;  // > 0: generate this many images instead of training
  std::string sample_png;
  std::string checkpoint;  // training saves the weights here; sampling loads them
};

void declare_ddpm_flags(train::Flags& flags);
Result<DdpmConfig> resolve_ddpm_config(const train::Flags& flags);

}  // namespace scalestudy::ddpm
