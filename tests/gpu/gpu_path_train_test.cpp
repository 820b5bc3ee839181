// scalestudy-train through the GPU path's switches, on the CPU: bf16 autocast trains and is
// recorded, fp16 and an absent CUDA device fail with the reason in the run record, the
// foreach optimizer matches torch::optim, device-resident data and channels_last train,
// and two ranks pick gloo by themselves. Where a CUDA device is visible, the same switches
// train on it.
// clang-format off
#include "tests/harness/torch_doctest.hpp"  // before run_database_reader.hpp includes doctest
// clang-format on

#include <torch/torch.h>

#include "tests/harness/child_process.hpp"
#include "tests/harness/dumped_params.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy {
namespace {

using testing::db_number;
using testing::db_text;
using testing::load_params;
using testing::max_difference;

// A short synthetic small-cnn run on the CPU; `extra` flags come last (a later flag wins).
std::vector<std::string> train_command(const std::string& out_dir,
                                       std::vector<std::string> extra = {}) {
  std::vector<std::string> command = {testing::binary("scalestudy-train"),
                                      "--out-dir",
                                      out_dir,
                                      "--dataset",
                                      "synthetic",
                                      "--model",
                                      "small-cnn",
                                      "--device",
                                      "cpu",
                                      "--epochs",
                                      "1",
                                      "--steps-per-epoch",
                                      "6",
                                      "--batch-size",
                                      "16",
                                      "--val-samples",
                                      "64",
                                      "--seed",
                                      "7",
                                      "--threads",
                                      "1",
                                      "--measure-warmup-steps",
                                      "2",
                                      "--dump-params",
                                      out_dir + "/params.pt"};
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

testing::Finished train(const std::string& out_dir, std::vector<std::string> extra = {}) {
  return testing::run_to_end(train_command(out_dir, std::move(extra)), {}, out_dir + ".txt", 120);
}

void check_failed(const testing::Finished& run, const std::string& db, const std::string& reason) {
  INFO(run.output);
  CHECK(run.exit_code == 1);
  CHECK(run.output.find(reason) != std::string::npos);
  CHECK(db_text(db, "SELECT status FROM run") == "failed");
  const std::string recorded = db_text(db, "SELECT failure_reason FROM run");
  CHECK_MESSAGE(recorded.find(reason) != std::string::npos, recorded);
}

}  // namespace

TEST_CASE("bf16 autocast trains on the CPU, is recorded, and changes the arithmetic") {
  const std::string dir = testing::fresh_dir("gpu-path-bf16");
  auto fp32 = train(dir + "/fp32");
  INFO(fp32.output);
  REQUIRE(fp32.exit_code == 0);
  auto bf16 = train(dir + "/bf16", {"--precision", "bf16"});
  INFO(bf16.output);
  REQUIRE(bf16.exit_code == 0);

  const std::string db = dir + "/bf16/rank0.sqlite";
  CHECK(db_text(db, "SELECT status || ' ' || device || ' ' || backend FROM run") ==
        "completed cpu none");
  CHECK(db_text(db, "SELECT json_extract(config_json, '$.precision') FROM run") == "bf16");
  CHECK(db_number(db, "SELECT count(*) FROM steps WHERE loss IS NOT NULL AND loss > 0") == 6);
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'optimizer_impl'") == "loop");
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'data_on_device'") == "false");
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'buffer_sync'") ==
        "before_validation");
  // Throughput from the wall clock over the measured window, the step-time sum beside it.
  CHECK(db_number(db,
                  "SELECT count(*) FROM summary WHERE name = 'samples_per_s_step_sum' "
                  "AND value > 0") == 1);
  // No loss scaling outside fp16, no device memory on the CPU.
  CHECK(db_number(db,
                  "SELECT count(*) FROM summary WHERE name LIKE 'loss_scale%' OR "
                  "name LIKE 'gpu_mem%'") == 0);

  std::vector<torch::Tensor> in_fp32 = load_params(dir + "/fp32/params.pt");
  std::vector<torch::Tensor> in_bf16 = load_params(dir + "/bf16/params.pt");
  for (const torch::Tensor& parameter : in_bf16) {
    CHECK((parameter.scalar_type() == torch::kFloat));  // master weights stay fp32
    CHECK(torch::isfinite(parameter).all().item<bool>());
  }
  // Same seed, same batches: only bfloat16 rounding in the forward pass tells them apart,
  // by a little.
  const double difference = max_difference(in_fp32, in_bf16);
  MESSAGE("max |w_bf16 - w_fp32| = " << difference);
  CHECK(difference > 1e-6);
  CHECK(difference < 0.1);
}

TEST_CASE("fp16 on the CPU and --device cuda without CUDA fail with the reason recorded") {
  const std::string dir = testing::fresh_dir("gpu-path-refusals");
  auto fp16 = train(dir + "/fp16", {"--precision", "fp16"});
  check_failed(fp16, dir + "/fp16/rank0.sqlite",
               "--precision fp16 needs a CUDA device: CPU autocast has no float16");
  CHECK(db_text(dir + "/fp16/rank0.sqlite", "SELECT device FROM run") == "cpu");

  auto graph = train(dir + "/graph", {"--cuda-graph", "true", "--device", "cpu"});
  check_failed(graph, dir + "/graph/rank0.sqlite", "--cuda-graph needs a CUDA device");

  if (torch::cuda::is_available()) {
    MESSAGE("skipped --device cuda refusal: a CUDA device is visible");
    return;
  }
  auto cuda = train(dir + "/cuda", {"--device", "cuda"});
  check_failed(cuda, dir + "/cuda/rank0.sqlite", "--device cuda: ");
  CHECK(db_text(dir + "/cuda/rank0.sqlite", "SELECT device FROM run") == "cuda");
}

TEST_CASE("the foreach optimizer ends where torch::optim ends, and is recorded") {
  const std::string dir = testing::fresh_dir("gpu-path-foreach");
  const std::vector<std::string> sgd = {"--momentum",     "0.9",   "--nesterov", "true",
                                        "--weight-decay", "0.0005"};
  std::vector<std::string> loop_flags = sgd, foreach_flags = sgd;
  loop_flags.insert(loop_flags.end(), {"--optimizer-impl", "loop"});
  foreach_flags.insert(foreach_flags.end(), {"--optimizer-impl", "foreach"});
  auto loop = train(dir + "/loop", loop_flags);
  auto foreach = train(dir + "/foreach", foreach_flags);
  INFO(loop.output << foreach.output);
  REQUIRE(loop.exit_code == 0);
  REQUIRE(foreach.exit_code == 0);
  CHECK(db_text(dir + "/foreach/rank0.sqlite",
                "SELECT value FROM provenance WHERE key = 'optimizer_impl'") == "foreach");
  const double difference =
      max_difference(load_params(dir + "/loop/params.pt"), load_params(dir + "/foreach/params.pt"));
  MESSAGE("max |w_foreach - w_loop| = " << difference);
  CHECK(difference < 1e-5);
}

TEST_CASE("device-resident, augmented, channels_last batches train") {
  const std::string dir = testing::fresh_dir("gpu-path-resident");
  auto run = train(dir + "/resident", {"--data-on-device", "true", "--augment", "true",
                                       "--channels-last", "true", "--precision", "bf16"});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string db = dir + "/resident/rank0.sqlite";
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'data_on_device'") == "true");
  CHECK(db_number(db, "SELECT count(*) FROM steps WHERE samples = 16") == 6);
  const double val_loss = db_number(db, "SELECT val_loss FROM epochs WHERE epoch = 1");
  CHECK(val_loss > 0);
  CHECK(val_loss < 10);
}

TEST_CASE("two CPU ranks choose gloo under --backend auto and record it") {
  const std::string dir = testing::fresh_dir("gpu-path-two-ranks");
  std::vector<std::string> command = {testing::binary("scalestudy-launch"), "--nproc-per-node", "2",
                                      "--"};
  for (const std::string& word : train_command(dir + "/pair", {"--precision", "bf16"})) {
    command.push_back(word);
  }
  auto pair = testing::run_to_end(command, {}, dir + "/pair.txt", 180);
  INFO(pair.output);
  REQUIRE(pair.exit_code == 0);
  for (const char* rank : {"rank0", "rank1"}) {
    CHECK(db_text(dir + "/pair/" + rank + ".sqlite",
                  "SELECT status || ' ' || device || ' ' || backend FROM run") ==
          "completed cpu gloo");
  }
}

TEST_CASE("on a CUDA device, fp16 and graph-captured bf16 train and record device memory") {
  if (!torch::cuda::is_available()) {
    SKIP_NOT_APPLICABLE("no CUDA device visible");
  }
  const std::string dir = testing::fresh_dir("gpu-path-cuda");
  auto fp16 = train(dir + "/fp16", {"--device", "cuda", "--precision", "fp16", "--channels-last",
                                    "true", "--data-on-device", "auto"});
  INFO(fp16.output);
  REQUIRE(fp16.exit_code == 0);
  const std::string db = dir + "/fp16/rank0.sqlite";
  CHECK(db_text(db, "SELECT device FROM run") == "cuda:0");
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'data_on_device'") == "true");
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'optimizer_impl'") == "foreach");
  CHECK(db_number(db, "SELECT value FROM summary WHERE name = 'gpu_mem_peak_bytes'") > 0);
  CHECK(db_number(db, "SELECT value FROM summary WHERE name = 'loss_scale'") > 0);
  CHECK(db_number(db, "SELECT sum(forward_ms) FROM steps") > 0);

  auto graph =
      train(dir + "/graph", {"--device", "cuda", "--precision", "bf16", "--cuda-graph", "true"});
  INFO(graph.output);
  REQUIRE(graph.exit_code == 0);
  for (const torch::Tensor& parameter : load_params(dir + "/graph/params.pt")) {
    CHECK(torch::isfinite(parameter).all().item<bool>());
  }
  CHECK(db_number(dir + "/graph/rank0.sqlite", "SELECT min(step_ms) FROM steps") > 0);

  // The fused AdamW advances its step counts on the device, so replays keep bias correction.
  auto adamw =
      train(dir + "/graph-adamw", {"--device", "cuda", "--precision", "bf16", "--cuda-graph",
                                   "true", "--optimizer", "adamw", "--lr", "0.001"});
  INFO(adamw.output);
  REQUIRE(adamw.exit_code == 0);
  for (const torch::Tensor& parameter : load_params(dir + "/graph-adamw/params.pt")) {
    CHECK(torch::isfinite(parameter).all().item<bool>());
  }
}

}  // namespace scalestudy
