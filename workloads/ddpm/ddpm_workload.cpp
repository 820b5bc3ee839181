#include "workloads/ddpm/ddpm_workload.hpp"

#include <chrono>
#include <cstdio>

#include "workloads/ddpm/ancestral_sampler.hpp"
#include "workloads/ddpm/png_grid.hpp"
#include "workloads/ddpm/seeded_generator.hpp"
#include "workloads/ddpm/weights_file.hpp"

namespace scalestudy::ddpm {
namespace {

constexpr int64_t kGridPaddingPx = 2;

}  // namespace

void DdpmWorkload::declare_flags(train::Flags& flags) const {
  training_.declare_flags(flags);
  flags.set_default("optimizer", "adamw");
  flags.set_default("lr", "0.0002");
}

void DdpmWorkload::derive_defaults(train::Flags& flags) const {
  // A bad --preset is reported by validate().
  if (auto preset = find_size_preset(flags.get("preset"))) {
    flags.set_default("batch-size", std::to_string(preset->per_gpu_batch));
  }
}

Status DdpmWorkload::validate(const train::Flags& flags) const {
  return training_.validate(flags);
}

Status DdpmWorkload::run(train::RunContext& context) {
  auto config = resolve_ddpm_config(context.flags);
  if (!config) return config.status();
  if (config->sample_count > 0) return generate(context, *config);
  if (Status trained = training_.run(context); !trained) return trained;
  if (context.checkpointed || config->checkpoint.empty() || !context.is_rank0()) {
    return Status::ok();
  }
  return save_weights(task_.module(), config->checkpoint);
}

Status DdpmWorkload::generate(train::RunContext& context, const DdpmConfig& config) {
  if (!context.is_rank0()) return Status::ok();
  auto seed = context.flags.get_int("seed");
  if (!seed) return seed.status();
  auto chunk = context.flags.get_int("eval-batch-size");
  if (!chunk) return chunk.status();
  const torch::Device device = context.device.device();
  UNet unet(config.unet);
  unet->to(device);
  if (Status loaded = load_weights(*unet, config.checkpoint); !loaded) return loaded;
  NoiseSchedule schedule(config.beta_schedule, config.timesteps, device);
  at::Generator generator = seeded_generator(device, static_cast<uint64_t>(*seed));

  auto started = std::chrono::steady_clock::now();
  torch::Tensor images = sample_images(unet, schedule, config.sample_count, *chunk, generator);
  double sampling_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (Status written = write_png(tile_grid(to_pixels(images), kGridPaddingPx), config.sample_png);
      !written) {
    return written;
  }
  context.summary["sampled_images"] = static_cast<double>(config.sample_count);
  context.summary["sampling_s"] = sampling_s;
  std::printf("Sampled %lld images (%lld steps) in %.1f s -> %s\n",
              static_cast<long long>(config.sample_count), static_cast<long long>(config.timesteps),
              sampling_s, config.sample_png.c_str());
  std::fflush(stdout);
  return Status::ok();
}

}  // namespace scalestudy::ddpm
