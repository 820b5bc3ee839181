// scalestudy-lm end to end on Debian's fortunes corpus, through the real binaries (issue 43's
// acceptance on CPU):
//   - accuracy: the tiny preset (0.84M parameters) at one rank, 100 steps of 32 windows of
//     128 bytes, reaches a validation loss below the unigram entropy of the corpus's training
//     bytes (what a model without context scores; the run records when it got there). Two
//     ranks of 16 windows (the same global batch) end within 0.05 nats of it: the same
//     windows, but gloo sums two half-batch gradients where one rank takes one mean, so the
//     runs differ by rounding that 100 AdamW steps amplify (measured: see the MESSAGE);
//   - ZeRO-1 at two ranks: every step's loss and the final parameters equal the unsharded
//     run's to the bit where the gradients were all-reduced (gloo in this LibTorch: the
//     shard update is the same element-wise AdamW on the same averaged gradients), within
//     1e-6 where they were reduce-scattered (another summation order); the optimizer state
//     each rank records is within 5% of half the unsharded run's;
//   - resume: a short run stopped before each of its steps (signal path) and run again
//     equals the uninterrupted run to the bit, on 1 and 2 ranks, without and with zero1
//     (one rank through a process group of its own, so its one shard is ZeRO's code);
//   - each fast path learns as the plain path does: 40 steps of the small shape, in fp32 and
//     in bf16 (CPU autocast), with --fused-head (chunks of 100 of a step's 512 tokens) and
//     with --gelu-epilogue; the loss falls by more than 1.5 nats from ln(256) on every path,
//     and every step's loss is the plain path's within, relative: the fused head 1e-5 in
//     fp32 (measured 1.8e-7), the GELU epilogue 1e-3 in fp32 (the CPU's epilogue GELU is
//     the exact one, the model's the tanh form; measured 1e-4), either 1e-2 in bf16
//     (measured 1.0e-3: 40 AdamW steps amplify bf16's roundings). About 20 s;
//   - a study of it (2 ranks, optimizer_sharding none and zero1, report.throughput_unit
//     tokens) through `scalestudy run` on the local executor: the report counts tokens/s,
//     its memory table shows the optimizer state per rank halved, and its ceilings count
//     the FLOP rule.
// clang-format off
#include "tests/harness/torch_doctest.hpp"  // before run_database_reader.hpp includes doctest
// clang-format on

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/exit_codes.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/dumped_params.hpp"
#include "tests/harness/local_study.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/skip.hpp"
#include "workloads/lm/token_corpus.hpp"

namespace scalestudy {
namespace {

using testing::load_params;
using testing::max_difference;

bool have_fortunes() {
  if (std::filesystem::exists(std::string(lm::kFortunesRoot) + "/fortunes")) return true;
  NOTE_SKIP_UNLESS_INSTALLED(lm::kFortunesRoot << " is not installed (apt install fortunes)");
  return false;
}

std::vector<std::string> lm_command(const std::string& out_dir, int ranks,
                                    std::vector<std::string> extra) {
  std::vector<std::string> command;
  if (ranks > 1) {
    command = {testing::binary("scalestudy-launch"), "--nproc-per-node", std::to_string(ranks),
               "--"};
  }
  for (const std::string& part :
       {testing::binary("scalestudy-lm"), std::string("--out-dir"), out_dir,
        std::string("--log-interval"), std::string("0"), std::string("--calibrate"),
        std::string("false"), std::string("--seed"), std::string("7"), std::string("--dump-params"),
        out_dir + "/params.pt"}) {
    command.push_back(part);
  }
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

testing::Finished run_lm(const std::string& out_dir, int ranks,
                         const std::vector<std::string>& extra) {
  std::filesystem::create_directories(out_dir);
  return testing::run_to_end(lm_command(out_dir, ranks, extra), {}, out_dir + "/out.txt", 600);
}

double summary(const std::string& out_dir, int rank, const std::string& name) {
  return testing::db_number(out_dir + "/rank" + std::to_string(rank) + ".sqlite",
                            "SELECT value FROM summary WHERE name = '" + name + "'");
}

std::string provenance(const std::string& out_dir, const std::string& key) {
  return testing::db_text(out_dir + "/rank0.sqlite",
                          "SELECT value FROM provenance WHERE key = '" + key + "'");
}

// The tiny preset on fortunes: 100 steps, 32 windows a step over all ranks, one core per
// rank (OpenMP threads of two ranks, or of ctest's other suite, fighting over two cores
// make a step ten times slower).
std::vector<std::string> accuracy_flags(int ranks, double target) {
  return {"--preset",
          "tiny",
          "--epochs",
          "1",
          "--steps-per-epoch",
          "100",
          "--batch-size",
          std::to_string(32 / ranks),
          "--val-samples",
          "256",
          "--measure-warmup-steps",
          "5",
          "--threads",
          "1",
          "--target-val-loss",
          std::to_string(target)};
}

// A small shape for the step-by-step comparisons: 2 layers of 64, context 32.
std::vector<std::string> small_flags(int ranks, const std::string& sharding,
                                     std::vector<std::string> extra = {}) {
  std::vector<std::string> flags = {"--n-layer",
                                    "2",
                                    "--n-head",
                                    "2",
                                    "--d-model",
                                    "64",
                                    "--seq-len",
                                    "32",
                                    "--train-samples",
                                    "256",
                                    "--val-samples",
                                    "32",
                                    "--batch-size",
                                    std::to_string(16 / ranks),
                                    "--optimizer-sharding",
                                    sharding,
                                    "--measure-warmup-steps",
                                    "1",
                                    "--threads",
                                    "1"};
  flags.insert(flags.end(), extra.begin(), extra.end());
  return flags;
}

}  // namespace

TEST_CASE("a tiny LM on fortunes goes below the corpus's unigram entropy; 2 ranks agree") {
  if (!have_fortunes()) return;
  auto corpus = lm::load_byte_corpus("fortunes", "");
  REQUIRE_MESSAGE(corpus, corpus.status().message());
  const double entropy = lm::unigram_entropy_nats(corpus->train);
  const std::string dir = testing::fresh_dir("lm-accuracy");
  std::map<int, double> final_loss;
  for (int ranks : {1, 2}) {
    const std::string out = dir + "/ranks" + std::to_string(ranks);
    auto run = run_lm(out, ranks, accuracy_flags(ranks, entropy));
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    final_loss[ranks] = summary(out, 0, "final_val_loss");
    MESSAGE(ranks << " rank(s): validation loss " << final_loss[ranks] << " nats against "
                  << entropy << " unigram; below it after " << summary(out, 0, "time_to_target_s")
                  << " s; " << summary(out, 0, "tokens_per_s") << " tokens/s");
    CHECK(summary(out, 0, "tokens_per_s") ==
          doctest::Approx(summary(out, 0, "samples_per_s") * 128).epsilon(1e-9));
    CHECK(summary(out, 0, "tokens_per_s_per_rank") ==
          doctest::Approx(summary(out, 0, "tokens_per_s") / ranks).epsilon(1e-9));
  }
  CHECK(final_loss[1] < entropy);
  CHECK(std::abs(final_loss[2] - final_loss[1]) < 0.05);
}

TEST_CASE("ZeRO-1 at two ranks: the unsharded run's losses and weights, half its state") {
  if (!have_fortunes()) return;
  const std::string dir = testing::fresh_dir("lm-zero1");
  for (const std::string& sharding : {"none", "zero1"}) {
    auto run = run_lm(dir + "/" + sharding, 2, small_flags(2, sharding, {"--epochs", "2"}));
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
  }
  const std::string none = dir + "/none", zero1 = dir + "/zero1";
  CHECK(provenance(none, "optimizer_sharding") == "none");
  CHECK(provenance(zero1, "optimizer_sharding") == "zero1");
  const std::string reduction = provenance(zero1, "gradient_reduction");
  MESSAGE("zero1's gradient reduction on this LibTorch's gloo: " << reduction);
  REQUIRE((reduction == "allreduce" || reduction == "reduce_scatter"));
  const double tolerance = reduction == "allreduce" ? 0 : 1e-6;
  CHECK(max_difference(load_params(none + "/params.pt"), load_params(zero1 + "/params.pt")) <=
        tolerance);
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    const std::string db = "/rank" + std::to_string(rank) + ".sqlite";
    const testing::StepLosses unsharded = testing::step_losses(none + db),
                              sharded = testing::step_losses(zero1 + db);
    REQUIRE(unsharded.size() == sharded.size());
    for (const auto& [step, loss] : unsharded) {
      CHECK(std::abs(sharded.at(step) - loss) <= tolerance * std::abs(loss));
    }
    const double half = summary(none, rank, "optimizer_state_bytes") / 2;
    const double per_rank = summary(zero1, rank, "optimizer_state_bytes");
    MESSAGE("rank " << rank << ": optimizer state " << per_rank << " bytes with zero1, half of "
                    << "unsharded " << half);
    CHECK(std::abs(per_rank - half) <= 0.05 * half);
  }
}

TEST_CASE("a short LM run resumed before any step equals the uninterrupted run") {
  if (!have_fortunes()) return;
  constexpr int kSteps = 4;  // 2 epochs of 2 steps
  for (int ranks : {1, 2}) {
    for (const std::string& sharding : {"none", "zero1"}) {
      CAPTURE(ranks);
      CAPTURE(sharding);
      const std::string dir = testing::fresh_dir("lm-resume");
      // One rank shards (in one shard) only through a process group of its own.
      const std::vector<std::string> shape = {"--epochs",
                                              "2",
                                              "--steps-per-epoch",
                                              "2",
                                              "--one-rank-process-group",
                                              ranks == 1 && sharding == "zero1" ? "true" : "false"};
      auto reference = run_lm(dir + "/reference", ranks, small_flags(ranks, sharding, shape));
      INFO(reference.output);
      REQUIRE(reference.exit_code == 0);
      CHECK(provenance(dir + "/reference", "optimizer_sharding") == sharding);
      for (int step = ranks > 1 ? 2 : 1; step < kSteps; ++step) {
        CAPTURE(step);
        // Two ranks agree on a stop one check after the signal (resume_sweep_test.cpp).
        std::vector<std::string> flags = small_flags(ranks, sharding, shape);
        for (const std::string& fault :
             {std::string("--test-signal-at-step"), std::to_string(ranks > 1 ? step - 1 : step),
              std::string("--stop-check-every"), std::string("1")}) {
          flags.push_back(fault);
        }
        const std::string out = dir + "/stop" + std::to_string(step);
        auto first = run_lm(out, ranks, flags);
        INFO(first.output);
        REQUIRE(first.exit_code == exit_codes::kCheckpointed);
        auto second = run_lm(out, ranks, flags);
        INFO(second.output);
        REQUIRE(second.exit_code == 0);
        CHECK(second.output.find("Resumed at global step " + std::to_string(step) + " ") !=
              std::string::npos);
        CHECK(max_difference(load_params(out + "/params.pt"),
                             load_params(dir + "/reference/params.pt")) == 0);
        for (int rank = 0; rank < ranks; ++rank) {
          const std::string db = "/rank" + std::to_string(rank) + ".sqlite";
          CHECK(testing::step_losses(out + db) == testing::step_losses(dir + "/reference" + db));
        }
      }
    }
  }
}

TEST_CASE("each fast path learns as the plain path does, in fp32 and in bf16") {
  if (!have_fortunes()) return;
  struct Path {
    std::string name;
    std::vector<std::string> flags;
    double fp32_tolerance;  // relative, per step; bf16: 1e-2 for every path
  };
  const std::vector<Path> paths = {
      {"plain", {}, 0},
      {"fused-head", {"--fused-head", "true", "--head-chunk-rows", "100"}, 1e-5},
      {"gelu-epilogue", {"--gelu-epilogue", "true"}, 1e-3}};
  const std::string dir = testing::fresh_dir("lm-fast-paths");
  for (const std::string& precision : {"fp32", "bf16"}) {
    CAPTURE(precision);
    std::map<std::string, testing::StepLosses> losses;
    for (const Path& path : paths) {
      CAPTURE(path.name);
      const std::string out = dir + "/" + precision + "-" + path.name;
      std::vector<std::string> flags = {"--train-samples", "640",    "--steps-per-epoch", "40",
                                        "--precision",     precision};
      flags.insert(flags.end(), path.flags.begin(), path.flags.end());
      auto run = run_lm(out, 1, small_flags(1, "none", flags));
      INFO(run.output);
      REQUIRE(run.exit_code == 0);
      const std::string config =
          testing::db_text(out + "/rank0.sqlite", "SELECT config_json FROM run");
      for (const std::string& flag : {"fused-head", "gelu-epilogue"}) {
        const bool on = path.name == flag;
        CHECK(config.find("\"" + flag + "\": \"" + (on ? "true" : "false") + "\"") !=
              std::string::npos);
      }
      losses[path.name] = testing::step_losses(out + "/rank0.sqlite");
      const testing::StepLosses& steps = losses[path.name];
      REQUIRE(steps.size() == 40);
      double last_five = 0;
      for (auto step = std::prev(steps.end(), 5); step != steps.end(); ++step) {
        last_five += step->second / 5;
      }
      MESSAGE(precision << " " << path.name << ": loss " << steps.begin()->second << " -> "
                        << last_five << " (mean of the last 5 steps)");
      CHECK(last_five < steps.begin()->second - 1.5);
      if (path.name == "plain") continue;
      double largest = 0;
      for (const auto& [step, loss] : losses["plain"]) {
        largest = std::max(largest, std::abs(steps.at(step) - loss) / std::abs(loss));
      }
      MESSAGE(precision << " " << path.name << ": largest step loss difference to plain "
                        << largest);
      CHECK(largest <= (precision == "fp32" ? path.fp32_tolerance : 1e-2));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("an LM study reports tokens/s, ZeRO-1's optimizer state per rank and rule FLOPs") {
  if (!have_fortunes()) return;
  const std::string dir = testing::fresh_dir("lm-study");
  const std::string study = dir + "/lm-cpu.yaml";
  std::ofstream(study) << R"(study: lm-cpu
kind: sensitivity
workload:
  binary: scalestudy-lm
  n_layer: 2
  n_head: 2
  d_model: 64
  seq_len: 32
  train_samples: 256
  val_samples: 32
  epochs: 1
  steps_per_epoch: 6
  measure_warmup_steps: 1
  threads: 1
  seed: 1
scale: [2]
per_gpu_batch: 8
matrix:
  optimizer_sharding: [none, zero1]
baseline: {optimizer_sharding: none}
repeats: 1
report:
  throughput_unit: tokens
slurm:
  ranks_per_node: 2
  cpus_per_task: 1
  time: "10"
)";
  const std::string results = dir + "/results";
  const testing::Finished run =
      testing::run_study_locally(study, results, 300, dir + "/output.txt");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("throughput [tokens/s]") != std::string::npos);
  CHECK(run.output.find("Optimizer state/rank [MiB]") != std::string::npos);
  const nlohmann::json report = testing::json_report(study, results, dir + "/report.json");
  CHECK(report["settings"]["throughput_unit"] == "tokens");
  std::map<std::string, nlohmann::json> points;
  for (const nlohmann::json& point : report["points"]) {
    points[point["config"]["optimizer_sharding"].get<std::string>()] = point;
  }
  REQUIRE(points.size() == 2);
  const double unsharded = points["none"]["memory"]["optimizer_state_bytes"].get<double>();
  const double sharded = points["zero1"]["memory"]["optimizer_state_bytes"].get<double>();
  CHECK(std::abs(sharded - unsharded / 2) <= 0.05 * unsharded / 2);
  // The runs' tokens/s, and the ceilings' achieved TFLOP/s by the rule, from their records.
  const std::string db = results + "/lm-cpu.sqlite";
  auto summary_value = [&](const std::string& run_id, const std::string& name) {
    return testing::db_number(db, "SELECT value FROM m_summary WHERE run_id = '" + run_id +
                                      "' AND rank = 0 AND name = '" + name + "'");
  };
  for (auto& [sharding, point] : points) {
    CAPTURE(sharding);
    const std::string run_id = point["runs"]["run_ids"][0].get<std::string>();
    CHECK(point["throughput_samples_per_s"]["median"].get<double>() ==
          doctest::Approx(summary_value(run_id, "tokens_per_s")).epsilon(1e-9));
    CHECK(point["ceilings"]["achieved_tflops"].get<double>() ==
          doctest::Approx(summary_value(run_id, "train_flops_per_sample") *
                          summary_value(run_id, "samples_per_s") / 2 / 1e12)
              .epsilon(1e-6));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace scalestudy
