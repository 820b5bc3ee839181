// Plans a 10,000-run sensitivity study (10 x 10 x 10 matrix x 10 repeats) and renders the
// job script of every run into a temporary folder; prints runs/s and scripts/s.
// Goal on one core: >= 20,000 runs/s planned, >= 5,000 scripts/s rendered. Rates are given
// per second of this process's CPU time (the figure for one core, whatever else the machine
// runs) and per wall-clock second; writing the files is timed apart from rendering them,
// as file creation speed is the file system's, not ours. Exits non-zero only when the
// result is wrong (run count, unique ids, scripts written), never on speed.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "harness/core/run_layout.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/study/study.hpp"

namespace {

constexpr size_t kExpectedRuns = 10 * 10 * 10 * 10;

const char kStudy[] = R"yaml(
study: plan-benchmark
kind: sensitivity
workload:
  model: resnet18
  dataset: cifar10
  data_root: /data/${dataset}
  epochs: 5
  optimizer: sgd
  schedule: cosine
  seed: ${repeat}
scale: [8]
slurm:
  partition: gpu
  account: proj
  time: "01:00:00"
  cpus_per_task: 8
  mem: 64G
  gpus_per_node: 4
  extra: [--exclusive]
modules: [cuda/12.2, nccl/2.18]
env: {NCCL_SOCKET_IFNAME: ib0, OMP_NUM_THREADS: 8, RUN_TAG: "${study}-${world_size}"}
matrix:
  bucket_cap_mb: [1, 2, 5, 10, 25, 50, 75, 100, 150, 200]
  per_gpu_batch: [16, 32, 48, 64, 96, 128, 192, 256, 384, 512]
  lr: [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.8, 1.0]
repeats: 10
baseline: {bucket_cap_mb: 25, per_gpu_batch: 128, lr: 0.1}
)yaml";

// Wall-clock and CPU seconds of one measured phase.
class Stopwatch {
 public:
  Stopwatch() : wall_start_(std::chrono::steady_clock::now()), cpu_start_(std::clock()) {}
  void stop() {
    wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    cpu_s_ = double(std::clock() - cpu_start_) / CLOCKS_PER_SEC;
  }
  void print(const char* what, size_t count, const char* unit, const char* goal) const {
    std::printf("%-24s %6zu %-7s cpu %7.3f s: %9.0f %s/s   wall %7.3f s: %9.0f %s/s   %s\n", what,
                count, unit, cpu_s_, count / cpu_s_, unit, wall_s_, count / wall_s_, unit, goal);
  }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  std::clock_t cpu_start_;
  double wall_s_ = 0, cpu_s_ = 0;
};

}  // namespace

int main() {
  using namespace scalestudy;
  namespace fs = std::filesystem;

  Stopwatch plan_time;
  Result<Study> study = load_study_text(kStudy, "plan-benchmark.yaml");
  plan_time.stop();
  if (!study) {
    std::fprintf(stderr, "plan failed: %s\n", study.status().message().c_str());
    return 1;
  }
  std::set<std::string> ids;
  for (const auto& run : study->runs) ids.insert(run.run_id);
  if (study->runs.size() != kExpectedRuns || ids.size() != kExpectedRuns) {
    std::fprintf(stderr, "expected %zu runs with unique ids, got %zu runs, %zu ids\n",
                 kExpectedRuns, study->runs.size(), ids.size());
    return 1;
  }

  RenderContext context;
  context.binary_path = "/opt/scalestudy/bin/scalestudy-train";
  std::vector<std::string> scripts;
  scripts.reserve(study->runs.size());
  Stopwatch render_time;
  for (const auto& run : study->runs) {
    context.out_dir = run_layout::run_dir("/scratch/results", study->name, run.run_id);
    scripts.push_back(render_sbatch_script(run, context));
  }
  render_time.stop();

  fs::path dir =
      fs::temp_directory_path() / ("scalestudy-plan-benchmark-" + std::to_string(getpid()));
  fs::create_directories(dir);
  Stopwatch write_time;
  for (size_t i = 0; i < scripts.size(); ++i) {
    std::ofstream(dir / (study->runs[i].run_id + ".sbatch"), std::ios::binary) << scripts[i];
  }
  write_time.stop();
  size_t written = 0;
  for (const auto& entry : fs::directory_iterator(dir)) written += entry.is_regular_file();
  fs::remove_all(dir);
  if (written != kExpectedRuns) {
    std::fprintf(stderr, "expected %zu scripts, found %zu\n", kExpectedRuns, written);
    return 1;
  }
  size_t bytes = 0;
  for (const auto& script : scripts) bytes += script.size();

  plan_time.print("planned", study->runs.size(), "runs", "(goal >= 20000 runs/s)");
  render_time.print("rendered", scripts.size(), "scripts", "(goal >= 5000 scripts/s)");
  write_time.print("written to temp dir", written, "scripts", "(file system)");
  std::printf("average script: %.1f KiB\n", bytes / 1024.0 / written);
  return 0;
}
