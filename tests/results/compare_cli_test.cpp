// `scalestudy compare` on real runs: two studies of the same small training configuration
// (repeats interleaved, so a change of machine load hits both alike) compare as "no
// significant change"; a deliberately slowed configuration (ResNet-18 instead of the small
// CNN, about 100× slower per sample on any CPU) compares as a regression and exits 1. Half
// the threads was tried first: on a loaded 2-core host its slow-down drifted from 0.8× to
// 0.3× between rounds and 3 repeats could not tell it from noise. Runs the quickstart's
// workload with the local executor; skipped without scalestudy-train or Fashion-MNIST.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "orchestrator/common/process_runner.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

namespace fs = std::filesystem;
using scalestudy::common::ProcessResult;
using namespace scalestudy::testing;

namespace {

constexpr const char* kDataRoot = "/usr/share/datasets/fashion-mnist";
constexpr int kRepeats = 4;  // Welch df ≥ 3 on the slowed side even with a noisy host
// Changes below 75% do not count: on a loaded shared host the same configuration measured
// up to 1.6× apart between studies (492 vs 790 samples/s), while the slowed one is ~100×
// slower. The gate is exercised end to end; small changes need a quiet host.
constexpr const char* kThresholdPct = "75";

struct StudyShape {
  std::string name;
  std::string model;
  int global_batch, steps_per_epoch, warmup_steps;
};

// The quickstart's workload on one rank, shortened.
void write_study(const fs::path& path, const StudyShape& shape, int repeats) {
  std::ofstream(path) << "study: " << shape.name
                      << "\nkind: strong\nworkload:\n  model: " << shape.model
                      << "\n  dataset: fashion-mnist\n  data_root: " << kDataRoot
                      << "\n  epochs: 1\n  steps_per_epoch: " << shape.steps_per_epoch
                      << "\n  measure_warmup_steps: " << shape.warmup_steps
                      << "\n  val_samples: 16\n  precision: fp32\n  optimizer: sgd\n  lr: 0.05\n"
                      << "  seed: 1\nscale: [1]\nglobal_batch: " << shape.global_batch
                      << "\nrepeats: " << repeats << "\nslurm:\n  time: \"10\"\n";
}

}  // namespace

TEST_CASE("compare: the same configuration is no significant change; a slowed one regresses") {
  if (!fs::exists(binary_dir() + "/scalestudy-train") || !fs::exists(kDataRoot)) {
    SKIP_UNLESS_INSTALLED("needs scalestudy-train and " << kDataRoot);
  }
  const fs::path dir = scratch_dir("compare_cli");
  const std::string results = (dir / "results").string();
  const std::vector<StudyShape> studies = {{"cmp_before", "small-cnn", 64, 30, 5},
                                           {"cmp_after", "small-cnn", 64, 30, 5},
                                           {"cmp_slowed", "resnet18", 4, 6, 3}};
  // One more repeat of each study per round: resubmitting skips the completed repeats.
  for (int repeats = 1; repeats <= kRepeats; ++repeats) {
    for (const auto& shape : studies) {
      const fs::path yaml = dir / (shape.name + ".yaml");
      write_study(yaml, shape, repeats);
      ProcessResult submitted = run_cli(
          {"submit", yaml.string(), "--scheduler", "local", "--results-dir", results}, 600'000);
      INFO(submitted.stdout_text << submitted.stderr_text);
      REQUIRE(submitted.exit_code == 0);
    }
  }

  ProcessResult same = run_cli({"compare", "cmp_before", "cmp_after", "--results-dir", results,
                                "--threshold-pct", kThresholdPct},
                               120'000);
  INFO(same.stdout_text << same.stderr_text);
  CHECK(same.exit_code == 0);
  CHECK(same.stdout_text.find("no significant change") != std::string::npos);
  CHECK(same.stdout_text.find("REGRESSION") == std::string::npos);

  ProcessResult slowed = run_cli({"compare", "cmp_before", "cmp_slowed", "--results-dir", results,
                                  "--threshold-pct", kThresholdPct, "--format", "md"},
                                 120'000);
  INFO(slowed.stdout_text << slowed.stderr_text);
  CHECK(slowed.exit_code == 1);
  CHECK(slowed.stdout_text.find("slower") != std::string::npos);
  CHECK(slowed.stdout_text.find("REGRESSION at 1 point(s)") != std::string::npos);
  MESSAGE("same configuration:\n" << same.stdout_text << "slowed:\n" << slowed.stdout_text);
}
