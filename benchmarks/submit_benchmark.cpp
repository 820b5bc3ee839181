// Submitting a 500-run study to the local SLURM cluster: as job arrays (runs of one shape
// share one sbatch) versus one sbatch per run, through the sbatch CLI and, when
// $SCALESTUDY_SLURMRESTD is set, through slurmrestd. Jobs are submitted held and cancelled
// right after, so nothing runs. Prints wall times and scheduler calls side by side; asserts
// only that every run got a job id. Needs a running cluster (slurm/cluster/start.sh, then
// source $STATE/env.sh); exits 0 with a note otherwise.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/sched/slurm_scheduler.hpp"
#include "orchestrator/sched/slurm_states.hpp"
#include "orchestrator/sched/slurmrest_scheduler.hpp"

using namespace scalestudy;
using namespace scalestudy::sched;
using namespace scalestudy::common;
namespace fs = std::filesystem;

namespace {

constexpr int kRuns = 500;

std::vector<PreparedRun> prepare_runs(const fs::path& dir) {
  std::vector<PreparedRun> runs;
  for (int index = 0; index < kRuns; ++index) {
    PreparedRun run;
    run.spec.study = "bench";
    run.spec.run_id = "run" + std::to_string(index);
    run.out_dir = (dir / run.spec.run_id).string();
    fs::create_directories(run.out_dir);
    run.script_path = run.out_dir + "/job.sbatch";
    std::ofstream(run.script_path) << "#!/bin/bash\n#SBATCH --job-name=bench-" << run.spec.run_id
                                   << "\n#SBATCH --output=/dev/null\n#SBATCH --nodes=1\n"
                                      "#SBATCH --ntasks-per-node=1\n#SBATCH --time=1\n"
                                      "echo lr="
                                   << index << "\n";
    runs.push_back(std::move(run));
  }
  return runs;
}

struct Measurement {
  double wall_s = 0;
  int calls = 0;
  size_t jobs = 0;
};

template <typename MakeScheduler, typename Calls>
Result<Measurement> measure(const std::vector<PreparedRun>& runs, bool arrays, MakeScheduler make,
                            Calls calls_of) {
  BatchOptions options;
  options.use_job_arrays = arrays;
  options.extra_sbatch_args = {"--hold"};
  options.array_script_dir = fs::path(runs.front().out_dir).parent_path().string() + "/arrays";
  auto scheduler = make(options);
  if (!scheduler) return scheduler.status();
  auto started = std::chrono::steady_clock::now();
  auto submitted = (*scheduler)->submit(runs, {});
  Measurement measurement;
  measurement.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  measurement.calls = calls_of(**scheduler);
  if (!submitted) return submitted.status();
  std::set<std::string> jobs;
  for (const auto& submission : *submitted) jobs.insert(base_job_id(submission.job_id));
  measurement.jobs = jobs.size();
  if (submitted->size() != runs.size()) return Status::error("not every run got a job id");
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), jobs.begin(), jobs.end());
  auto cancelled = run_process({argv, {}, 120'000});
  if (!cancelled || !cancelled->succeeded()) return Status::error("scancel failed");
  return measurement;
}

void print(const char* label, const Measurement& arrays, const Measurement& single) {
  std::printf(
      "%-10s job arrays: %7.2f s, %4d scheduler calls, %3zu jobs | one per run: "
      "%7.2f s, %4d calls, %3zu jobs | speed-up %.1fx, %.0fx fewer calls\n",
      label, arrays.wall_s, arrays.calls, arrays.jobs, single.wall_s, single.calls, single.jobs,
      single.wall_s / arrays.wall_s, static_cast<double>(single.calls) / std::max(1, arrays.calls));
}

}  // namespace

int main() {
  auto ping = run_process({{"scontrol", "ping"}, {}, 10'000});
  if (!find_on_path("sbatch") || !ping || !ping->succeeded() ||
      ping->stdout_text.find("UP") == std::string::npos) {
    std::puts(
        "submit_benchmark: skipped (no running SLURM cluster; start slurm/cluster/start.sh "
        "and source its env.sh)");
    return 0;
  }
  fs::path dir = fs::temp_directory_path() / "scalestudy_submit_benchmark";
  fs::remove_all(dir);
  std::vector<PreparedRun> runs = prepare_runs(dir);
  std::printf("submitting %d runs of one shape (held, then cancelled)\n", kRuns);

  auto cli = [](const BatchOptions& options) -> Result<std::unique_ptr<SlurmScheduler>> {
    return std::make_unique<SlurmScheduler>(options);
  };
  auto cli_calls = [](const SlurmScheduler& scheduler) { return scheduler.commands_run(); };
  auto cli_arrays = measure(runs, true, cli, cli_calls);
  auto cli_single = measure(runs, false, cli, cli_calls);
  if (!cli_arrays || !cli_single) {
    std::fprintf(stderr, "submit_benchmark: %s\n",
                 (!cli_arrays ? cli_arrays.status() : cli_single.status()).message().c_str());
    return 1;
  }
  print("sbatch", *cli_arrays, *cli_single);

  if (const char* rest = std::getenv("SCALESTUDY_SLURMRESTD"); rest != nullptr && *rest != '\0') {
    auto rest_make = [](const BatchOptions& options) {
      return SlurmRestScheduler::create({options});
    };
    auto rest_calls = [](const SlurmRestScheduler& scheduler) { return scheduler.requests_sent(); };
    auto rest_arrays = measure(runs, true, rest_make, rest_calls);
    auto rest_single = measure(runs, false, rest_make, rest_calls);
    if (!rest_arrays || !rest_single) {
      std::fprintf(stderr, "submit_benchmark: %s\n",
                   (!rest_arrays ? rest_arrays.status() : rest_single.status()).message().c_str());
      return 1;
    }
    print("slurmrest", *rest_arrays, *rest_single);
  }
  return 0;
}
