// `scalestudy compare` on real runs: two studies of the same small training configuration
// (repeats interleaved, so a change of machine load hits both alike) compare as "no
// significant change"; a study of the same configuration with half the intra-op threads
// compares as a regression and exits 1. Runs the quickstart's workload with the local
// executor; skipped when scalestudy-train or the Fashion-MNIST data is missing.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "orchestrator/sched/process_runner.hpp"

namespace fs = std::filesystem;
using scalestudy::sched::ProcessResult;

namespace {

constexpr const char* kDataRoot = "/usr/share/datasets/fashion-mnist";
constexpr int kRepeats = 3;
// Half the threads halves throughput on a loaded host (each thread gets its own share)
// and nearly so on an idle 2-core one; same-configuration drift stays well inside 20%.
constexpr const char* kThresholdPct = "20";

std::string binary_dir() {
  const char* dir = std::getenv("SCALESTUDY_BINARY_DIR");
  return std::string(dir != nullptr ? dir : ".") + "/bin";
}

ProcessResult run_cli(std::vector<std::string> args, int timeout_ms) {
  args.insert(args.begin(), binary_dir() + "/scalestudy");
  auto result = scalestudy::sched::run_process({args, {}, timeout_ms});
  REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  return *result;
}

// The quickstart's small CNN on one rank, shortened; `threads` intra-op threads.
void write_study(const fs::path& path, const std::string& name, int threads, int repeats) {
  std::ofstream(path) << "study: " << name << "\nkind: strong\nworkload:\n"
                      << "  model: small-cnn\n  dataset: fashion-mnist\n  data_root: " << kDataRoot
                      << "\n  epochs: 1\n  steps_per_epoch: 30\n  measure_warmup_steps: 5\n"
                      << "  val_samples: 256\n  precision: fp32\n  optimizer: sgd\n  lr: 0.05\n"
                      << "  seed: 1\n  threads: " << threads << "\nscale: [1]\nglobal_batch: 64\n"
                      << "repeats: " << repeats << "\nslurm:\n  cpus_per_task: " << threads
                      << "\n  time: \"10\"\n";
}

}  // namespace

TEST_CASE("compare: same configuration is no significant change; half the threads regresses") {
  if (!fs::exists(binary_dir() + "/scalestudy-train") || !fs::exists(kDataRoot)) {
    MESSAGE("skipped: needs scalestudy-train and " << kDataRoot);
    return;
  }
  const fs::path dir = fs::temp_directory_path() / "scalestudy_compare_cli";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string results = (dir / "results").string();
  const std::vector<std::pair<std::string, int>> studies = {
      {"cmp_before", 2}, {"cmp_after", 2}, {"cmp_slowed", 1}};
  // One more repeat of each study per round: resubmitting skips the completed repeats.
  for (int repeats = 1; repeats <= kRepeats; ++repeats) {
    for (const auto& [name, threads] : studies) {
      const fs::path yaml = dir / (name + ".yaml");
      write_study(yaml, name, threads, repeats);
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
  MESSAGE("same configuration:\n"
          << same.stdout_text << "half the threads:\n"
          << slowed.stdout_text);
}
