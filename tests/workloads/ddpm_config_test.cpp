// scalestudy-ddpm's flags: the preset decides the image side and, unless --batch-size is
// given, the per-GPU batch (recorded in the resolved flags); the DDPM optimizer defaults;
// errors for a bad preset, a non-IDX data set and --sample without weights.
#include "workloads/ddpm/ddpm_config.hpp"

#include "harness/dist/rank_discovery.hpp"
#include "harness/train/flags.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "workloads/ddpm/ddpm_task.hpp"
#include "workloads/ddpm/ddpm_workload.hpp"

namespace scalestudy::ddpm {
namespace {

// The flags as the driver leaves them for the workload: declared, parsed, defaults derived.
train::Flags parsed(const DdpmWorkload& workload, const std::vector<std::string>& arguments) {
  train::Flags flags;
  workload.declare_flags(flags);
  Status status = flags.parse(arguments);
  REQUIRE_MESSAGE(status.is_ok(), status.message());
  workload.derive_defaults(flags);
  return flags;
}

}  // namespace

TEST_CASE("each preset sets the image side and the seed's per-GPU batch unless one is given") {
  DdpmWorkload workload;
  const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> seed_table = {
      {"small", {28, 2048}}, {"medium", {64, 384}}, {"large", {96, 96}}, {"xl", {128, 32}}};
  for (const auto& [name, side_and_batch] : seed_table) {
    CAPTURE(name);
    train::Flags flags = parsed(workload, {"--preset", name});
    CHECK(flags.get("batch-size") == std::to_string(side_and_batch.second));
    CHECK(flags.resolved().at("batch-size") == std::to_string(side_and_batch.second));
    auto config = resolve_ddpm_config(flags);
    REQUIRE_MESSAGE(config.is_ok(), config.status().message());
    CHECK(config->unet.image_size == side_and_batch.first);
    CHECK(config->preset.per_gpu_batch == side_and_batch.second);
    CHECK(workload.validate(flags).is_ok());
  }
  train::Flags explicit_batch = parsed(workload, {"--preset", "xl", "--batch-size", "7"});
  CHECK(explicit_batch.get("batch-size") == "7");
}

TEST_CASE("DDPM training defaults to AdamW at 2e-4, a 1000-step linear schedule, EMNIST") {
  DdpmWorkload workload;
  train::Flags flags = parsed(workload, {});
  CHECK(flags.get("optimizer") == "adamw");
  CHECK(flags.get("lr") == "0.0002");
  auto config = resolve_ddpm_config(flags);
  REQUIRE(config.is_ok());
  CHECK(config->timesteps == 1000);
  CHECK(config->beta_schedule == BetaSchedule::kLinear);
  CHECK(config->dataset == "emnist-balanced");
  CHECK(config->sample_count == 0);
  train::Flags sgd = parsed(workload, {"--optimizer", "sgd", "--lr", "0.1"});
  CHECK(sgd.get("optimizer") == "sgd");
}

TEST_CASE("synthetic data gives one-channel images at the preset's side, no files needed") {
  DdpmWorkload workload;
  train::Flags flags = parsed(workload, {"--dataset", "synthetic", "--preset", "medium",
                                         "--train-samples", "20", "--val-samples", "10"});
  REQUIRE(workload.validate(flags).is_ok());
  DdpmTask task;
  const dist::RankInfo rank_info;
  Status setup = task.setup(train::TaskSetup{flags, rank_info, 7});
  REQUIRE_MESSAGE(setup.is_ok(), setup.message());
  auto resident = task.resident_training_data();
  REQUIRE(resident.has_value());
  CHECK(resident->split->images.sizes() == torch::IntArrayRef({20, 1, 64, 64}));
}

TEST_CASE("bad DDPM flags are errors naming the flag") {
  DdpmWorkload workload;
  auto message_of = [&](const std::vector<std::string>& arguments) {
    train::Flags flags = parsed(workload, arguments);
    Status status = workload.validate(flags);
    REQUIRE_FALSE(status.is_ok());
    return status.message();
  };
  CHECK(message_of({"--preset", "huge"}) ==
        "--preset 'huge' is not one of small, medium, large, xl");
  CHECK(message_of({"--dataset", "cifar10"})
            .find("--dataset 'cifar10' is neither an IDX data set nor synthetic") == 0);
  CHECK(message_of({"--sample", "16"}) ==
        "--sample needs --checkpoint (the weights of a training run)");
  CHECK(message_of({"--timesteps", "1"}) == "--timesteps must be >= 2");
  CHECK(message_of({"--base-channels", "9"}).find("--base-channels must be even") == 0);
  // The task's own check (a CPU build's loop refuses CUDA graphs before it).
  train::Flags graph = parsed(workload, {"--cuda-graph", "true"});
  Status refused = DdpmTask().validate(graph);
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.message().find("--cuda-graph: the DDPM step draws") == 0);
}

}  // namespace scalestudy::ddpm
