// profiles/*.yaml as the job-script renderer applies them: the rendered launch line of
// each profile, and its rank gate run for real with stand-ins for nsys and ncu (which
// this machine lacks) that record how they were called. Also profiled-run specs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/campaign/profiled_submit.hpp"
#include "orchestrator/sched/local_launch.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/sched/render/profile_wrapper.hpp"
#include "orchestrator/sched/render/shell_quote.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

const char kStudy[] = R"(
study: prof
kind: strong
scale: [8]
global_batch: 256
workload: {model: resnet18}
slurm: {partition: gpu, gpus_per_node: 4}
)";

RunSpec first_run() {
  Result<Study> study = load_study_text(kStudy, "prof.yaml");
  INFO(study.status().message());
  REQUIRE(study.is_ok());
  return study->runs.front();
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_script(const fs::path& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
}

// A folder with stand-in profilers (tools/) and workload (bin/), each appending one line
// to `calls`.
struct FakeCluster {
  fs::path root;
  fs::path calls;
  RenderContext context;

  FakeCluster() {
    root = fs::temp_directory_path() / ("scalestudy-profile-render-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "tools");
    fs::create_directories(root / "bin");
    fs::create_directories(root / "out");
    calls = root / "calls";
    for (const char* tool : {"nsys", "ncu"}) {
      write_script(root / "tools" / tool,
                   std::string("echo \"") + tool + " $*\" >> '" + calls.string() + "'");
    }
    write_script(root / "bin" / "scalestudy-train",
                 "echo \"workload rank=$RANK nvtx=$NVTX_INJECTION64_PATH "
                 "trace=$SCALESTUDY_NVTX_TRACE $*\" >> '" +
                     calls.string() + "'");
    context.out_dir = (root / "out").string();
    context.binary_path = (root / "bin" / "scalestudy-train").string();
  }
  ~FakeCluster() { fs::remove_all(root); }

  // Runs what one srun task runs on one rank: the command after scalestudy-launch's "--"
  // (the launcher only sets the torchrun variables, RANK here); returns the recorded calls.
  std::string run_rank(const RunSpec& spec, int rank) {
    fs::remove(calls);
    std::vector<std::string> words = launch_command(spec, context);
    REQUIRE(words.size() > 2);
    REQUIRE(words[0] == "srun");
    auto separator = std::find(words.begin(), words.end(), "--");
    REQUIRE(separator != words.end());
    std::string line =
        "RANK=" + std::to_string(rank) + " PATH='" + (root / "tools").string() + "':\"$PATH\"";
    for (auto word = separator + 1; word != words.end(); ++word) line += " " + shell_quote(*word);
    REQUIRE(std::system(line.c_str()) == 0);
    return read_text(calls);
  }
};

std::vector<std::string> wrapper_of(const std::string& profile) {
  auto loaded = load_profile(SCALESTUDY_PROFILES_DIR, profile);
  INFO(loaded.status().message());
  REQUIRE(loaded.is_ok());
  return loaded->wrapper;
}

TEST_CASE("none wraps nothing") {
  CHECK(wrapper_of("none").empty());
}

TEST_CASE("nsys: rendered script, and the profiler on rank 0 only") {
  FakeCluster cluster;
  RunSpec spec = first_run();
  cluster.context.profile_wrapper = wrapper_of("nsys");
  std::string script = render_sbatch_script(spec, cluster.context);
  CAPTURE(script);
  // Every srun task runs under scalestudy-launch, which sets the torchrun variables.
  CHECK(script.find("srun ${SCALESTUDY_STEP_OPTIONS:-} --kill-on-bad-exit=1 scalestudy-launch "
                    "--srun-task --rank-log-dir " +
                    cluster.context.out_dir +
                    " -- bash -c 'rank=\"${RANK:-${SLURM_PROCID:-0}}\"") != std::string::npos);
  CHECK(script.find(" scalestudy-profile 0 nsys profile --trace=cuda,nvtx,osrt,cudnn,cublas "
                    "--capture-range=cudaProfilerApi --capture-range-end=stop '--output=" +
                    cluster.context.out_dir + "/nsys-" + spec.run_id +
                    "-rank{rank}' --force-overwrite=true -- " + cluster.context.binary_path) !=
        std::string::npos);
  CHECK(std::system(("bash -n <<'EOF'\n" + script + "\nEOF").c_str()) == 0);

  std::string rank0 = cluster.run_rank(spec, 0);
  CHECK(rank0.find(
            "nsys profile --trace=cuda,nvtx,osrt,cudnn,cublas --capture-range=cudaProfilerApi "
            "--capture-range-end=stop --output=" +
            cluster.context.out_dir + "/nsys-" + spec.run_id + "-rank0 --force-overwrite=true " +
            cluster.context.binary_path + " --run-id " + spec.run_id) == 0);
  CHECK(rank0.find("workload") == std::string::npos);  // the stand-in nsys does not run it
  std::string rank3 = cluster.run_rank(spec, 3);
  CHECK(rank3.find("workload rank=3 nvtx= trace= --run-id " + spec.run_id) == 0);
  CHECK(rank3.find("nsys") == std::string::npos);
}

TEST_CASE("ncu: NVTX filter on the step range, launch skip and count, rank 0 only") {
  FakeCluster cluster;
  RunSpec spec = first_run();
  cluster.context.profile_wrapper = wrapper_of("ncu");
  std::string rank0 = cluster.run_rank(spec, 0);
  CHECK(rank0.find("ncu --nvtx --nvtx-include scalestudy@step/ --section SpeedOfLight "
                   "--launch-skip 200 --launch-count 100 --export " +
                   cluster.context.out_dir + "/ncu-" + spec.run_id + "-rank0 --force-overwrite " +
                   cluster.context.binary_path) == 0);
  CHECK(cluster.run_rank(spec, 1).find("workload rank=1") == 0);
}

TEST_CASE("torch: every rank gets the NVTX trace library from the workload's folder") {
  FakeCluster cluster;
  RunSpec spec = first_run();
  cluster.context.profile_wrapper = wrapper_of("torch");
  for (int rank : {0, 5}) {
    std::string call = cluster.run_rank(spec, rank);
    CHECK(call.find("workload rank=" + std::to_string(rank) +
                    " nvtx=" + (cluster.root / "bin" / "libscalestudy_nvtx_trace.so").string() +
                    " trace=" + cluster.context.out_dir + "/trace-" + spec.run_id + "-rank" +
                    std::to_string(rank) + ".json --run-id") == 0);
  }
}

TEST_CASE("a profiled run is the measured run with a profile, its params and a new id") {
  RunSpec measured = first_run();
  auto nsys = load_profile(SCALESTUDY_PROFILES_DIR, "nsys");
  auto ncu = load_profile(SCALESTUDY_PROFILES_DIR, "ncu");
  REQUIRE(nsys.is_ok());
  REQUIRE(ncu.is_ok());
  RunSpec profiled = campaign::make_profiled_spec(measured, *nsys);
  CHECK(profiled.profile == "nsys");
  CHECK(profiled.params.at("profile_steps") == "20:30");
  CHECK(profiled.params.at("model") == "resnet18");
  CHECK(profiled.run_id.size() == 16);
  CHECK(profiled.run_id != measured.run_id);
  CHECK(campaign::make_profiled_spec(measured, *nsys).run_id == profiled.run_id);
  CHECK(campaign::make_profiled_spec(measured, *ncu).run_id != profiled.run_id);
  CHECK(measured.profile == "none");

  auto words = sched::local_wrapper_argv(*nsys, "/r/out", "abc");
  REQUIRE(words.is_ok());
  CHECK(fs::path((*words)[0]).is_absolute());
  CHECK(fs::path((*words)[0]).filename() == "bash");
  CHECK(words->at(10) == "--output=/r/out/nsys-abc-rank{rank}");
}

TEST_CASE("a bad profile file names the file, position and field") {
  fs::path dir =
      fs::temp_directory_path() / ("scalestudy-bad-profile-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "broken.yaml") << "name: broken\nparams:\n  - profile_steps\n";
  auto profile = load_profile(dir.string(), "broken");
  REQUIRE_FALSE(profile.is_ok());
  CHECK(profile.status().message() ==
        (dir / "broken.yaml").string() + ":3:3: field 'params': expected a map");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy
