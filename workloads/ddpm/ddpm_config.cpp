#include "workloads/ddpm/ddpm_config.hpp"

#include <algorithm>

#include "harness/data/dataset_registry.hpp"

namespace scalestudy::ddpm {
namespace {

bool is_idx_dataset(const std::string& name) {
  return name == "mnist" || name == "fashion-mnist" || name.rfind("emnist-", 0) == 0;
}

// IDX data sets (single-channel characters and clothes), or synthetic one-channel images at
// the preset's side for runs that need no files (the GPU kit's smoke run).
Status check_dataset(const std::string& name) {
  const std::vector<std::string> known = data::dataset_names();
  if (name == "synthetic") return Status::ok();
  if (is_idx_dataset(name) && std::find(known.begin(), known.end(), name) != known.end()) {
    return Status::ok();
  }
  std::string valid;
  for (const std::string& candidate : known) {
    if (is_idx_dataset(candidate)) valid += candidate + ", ";
  }
  return Status::error("--dataset '" + name +
                       "' is neither an IDX data set nor synthetic: " + valid + "synthetic");
}

// Reads a flag that must be an integer >= `minimum` into `target`, keeping the first error.
void read_int(Status& status, int64_t& target, const train::Flags& flags, const char* name,
              int64_t minimum) {
  if (!status) return;
  auto value = flags.get_int(name);
  if (!value) {
    status = value.status();
  } else if (*value < minimum) {
    status = Status::error(std::string("--") + name + " must be >= " + std::to_string(minimum));
  } else {
    target = *value;
  }
}

}  // namespace

void declare_ddpm_flags(train::Flags& flags) {
  flags
      .declare("preset", "small",
               "image size and default per-GPU batch: small 28px/2048 | medium 64px/384 | "
               "large 96px/96 | xl 128px/32")
      .one_of({"small", "medium", "large", "xl"});
  flags.declare("dataset", "emnist-balanced",
                "fashion-mnist | mnist | emnist-<split> | synthetic (one channel, the preset's "
                "side)");
  train::declare_data_source_flags(flags);
  flags.declare("base-channels", "64", "UNet width at full resolution (even)").integer(2);
  flags.declare("res-blocks", "2", "UNet residual blocks per resolution level").integer(1);
  flags.declare("attention-max-size", "16", "self-attention at levels with a side <= this")
      .integer(0);
  flags.declare("timesteps", "1000", "diffusion steps T").integer(2);
  flags.declare("beta-schedule", "linear", "linear | cosine").one_of({"linear", "cosine"});
  flags.declare("sample", "0", "generate N images into --sample-png instead of training")
      .integer(0);
  flags.declare("sample-png", "samples.png", "the PNG grid --sample writes");
  flags.declare("checkpoint", "", "weights file: training saves it, --sample loads it");
}

Result<DdpmConfig> resolve_ddpm_config(const train::Flags& flags) {
  DdpmConfig config;
  auto preset = find_size_preset(flags.get("preset"));
  if (!preset) return preset.status();
  config.preset = *preset;
  auto beta_schedule = parse_beta_schedule(flags.get("beta-schedule"));
  if (!beta_schedule) return beta_schedule.status();
  config.beta_schedule = *beta_schedule;
  config.dataset = flags.get("dataset");
  if (Status known = check_dataset(config.dataset); !known) return known;
  config.data_root = flags.get("data-root");
  config.sample_png = flags.get("sample-png");
  config.checkpoint = flags.get("checkpoint");

  Status status = Status::ok();
  read_int(status, config.train_samples, flags, "train-samples", 0);
  read_int(status, config.val_samples, flags, "val-samples", 0);
  read_int(status, config.unet.base_channels, flags, "base-channels", 2);
  read_int(status, config.unet.res_blocks, flags, "res-blocks", 1);
  read_int(status, config.unet.attention_max_size, flags, "attention-max-size", 0);
  read_int(status, config.timesteps, flags, "timesteps", 2);
  read_int(status, config.sample_count, flags, "sample", 0);
  if (!status) return status;
  if (config.sample_count > 0 && config.checkpoint.empty()) {
    return Status::error("--sample needs --checkpoint (the weights of a training run)");
  }
  config.unet.image_channels = 1;
  config.unet.image_size = config.preset.image_size;
  config.unet.channel_multipliers = config.preset.channel_multipliers;
  if (Status valid = validate_unet_config(config.unet); !valid) return valid;
  return config;
}

}  // namespace scalestudy::ddpm
