#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/sched/render/shell_quote.hpp"
#include "orchestrator/sched/render/text_template.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

RunSpec load_first_run(const std::string& yaml) {
  Result<Study> study = load_study_text(yaml, "render.yaml");
  INFO(study.status().message());
  REQUIRE(study.is_ok());
  return study->runs.front();
}

RenderContext context_for(const RunSpec& spec) {
  RenderContext context;
  context.out_dir = "/results/" + spec.study + "/runs/" + spec.run_id;
  context.binary_path = "/opt/scalestudy/bin/scalestudy-train";
  context.launch_helper_path = "/opt/scalestudy/bin/scalestudy-launch";
  return context;
}

bool has_line(const std::string& script, const std::string& line) {
  return ("\n" + script + "\n").find("\n" + line + "\n") != std::string::npos;
}

// `bash -n`: the script parses.
bool bash_syntax_ok(const std::string& script) {
  fs::path path = fs::temp_directory_path() / "scalestudy-render-test.sh";
  std::ofstream(path) << script;
  int status = std::system(("bash -n '" + path.string() + "'").c_str());
  fs::remove(path);
  return status == 0;
}

const char kGpuStudy[] = R"(
study: render
kind: strong
scale: [8]
global_batch: 512
workload: {model: resnet18, bucket_cap_mb: 25, amp: true}
slurm:
  partition: gpu
  account: proj1
  qos: normal
  constraint: a100&ib
  time: 1-00:30:00
  cpus_per_task: 8
  mem: 64G
  gpus_per_node: 4
  extra: [--exclusive]
modules: [cuda/12.2]
env: {NCCL_SOCKET_IFNAME: ib0}
)";

TEST_CASE("the workload argv: run id, out dir, then sorted params as --kebab-case flags") {
  RunSpec spec = load_first_run(kGpuStudy);
  std::vector<std::string> argv = workload_argv(spec, "/bin/train", "/out");
  CHECK(argv == std::vector<std::string>{"/bin/train", "--run-id", spec.run_id, "--out-dir", "/out",
                                         "--amp", "true", "--batch-size", "64", "--bucket-cap-mb",
                                         "25", "--model", "resnet18"});
}

TEST_CASE("SIGTERM comes a minute before the limit, or a quarter of a short limit") {
  RunSpec spec = load_first_run(kGpuStudy);
  const std::pair<int, std::string> cases[] = {
      {0, "TERM@60"}, {1, "TERM@15"}, {2, "TERM@30"}, {4, "TERM@60"}, {1470, "TERM@60"}};
  for (const auto& [minutes, signal] : cases) {
    spec.slurm.time_limit_minutes = minutes;
    CAPTURE(minutes);
    CHECK(has_line(render_sbatch_script(spec, context_for(spec)), "#SBATCH --signal=" + signal));
  }
}

TEST_CASE("a retry after a node failure renders the nodes it leaves out") {
  RunSpec spec = load_first_run(kGpuStudy);
  CHECK(render_sbatch_script(spec, context_for(spec)).find("--exclude") == std::string::npos);
  spec.slurm.exclude_nodes = {"gpu[01-02]", "gpu07"};
  const std::string script = render_sbatch_script(spec, context_for(spec));
  CAPTURE(script);
  CHECK(has_line(script, "#SBATCH --exclude=gpu[01-02],gpu07"));
  CHECK(bash_syntax_ok(script));
}

TEST_CASE("policy.hang_after reaches the per-node launcher as its watchdog") {
  RunSpec spec = load_first_run(kGpuStudy);
  spec.launcher = LauncherKind::kTorchrun;
  CHECK(render_sbatch_script(spec, context_for(spec)).find("--hang-after-s") == std::string::npos);
  spec.slurm.hang_after_s = 300;
  const std::string script = render_sbatch_script(spec, context_for(spec));
  CAPTURE(script);
  CHECK(script.find("--rank-log-dir /results/render/runs/" + spec.run_id +
                    " --hang-after-s 300 --") != std::string::npos);
  // The py-spy the submitter knows of, for Python ranks.
  RenderContext context = context_for(spec);
  context.py_spy_path = "/opt/venv/bin/py-spy";
  CHECK(render_sbatch_script(spec, context)
            .find(" --hang-after-s 300 --py-spy /opt/venv/bin/py-spy --") != std::string::npos);
  // Unset: the launcher's default rule, with py-spy; off: no watchdog, no py-spy.
  spec.slurm.hang_after_s.reset();
  CHECK(
      render_sbatch_script(spec, context).find(spec.run_id + " --py-spy /opt/venv/bin/py-spy --") !=
      std::string::npos);
  spec.slurm.hang_after_s = 0;
  const std::string off = render_sbatch_script(spec, context);
  CHECK(off.find(" --hang-after-s 0 --") != std::string::npos);
  CHECK(off.find("--py-spy") == std::string::npos);
}

TEST_CASE("the sbatch script of a GPU run") {
  RunSpec spec = load_first_run(kGpuStudy);
  RenderContext context = context_for(spec);
  REQUIRE(check_render_context(context).is_ok());
  std::string script = render_sbatch_script(spec, context);
  CAPTURE(script);
  CHECK(script.rfind("#!/bin/bash\n#SBATCH ", 0) == 0);
  CHECK(has_line(script, "#SBATCH --job-name=render-" + spec.run_id));
  CHECK(has_line(script, "#SBATCH --nodes=2"));
  CHECK(has_line(script, "#SBATCH --ntasks-per-node=4"));
  CHECK(has_line(script, "#SBATCH --gpus-per-node=4"));
  CHECK(has_line(script, "#SBATCH --cpus-per-task=8"));
  CHECK(has_line(script, "#SBATCH --mem=64G"));
  CHECK(has_line(script, "#SBATCH --time=1-00:30:00"));
  CHECK(has_line(script, "#SBATCH --partition=gpu"));
  CHECK(has_line(script, "#SBATCH --account=proj1"));
  CHECK(has_line(script, "#SBATCH --qos=normal"));
  CHECK(has_line(script, "#SBATCH --constraint=a100&ib"));
  CHECK(has_line(script, "#SBATCH --output=" + context.out_dir + "/slurm-%j.out"));
  CHECK(has_line(script, "#SBATCH --error=" + context.out_dir + "/slurm-%j.err"));
  CHECK(has_line(script, "#SBATCH --signal=TERM@60"));
  CHECK(has_line(script, "#SBATCH --exclusive"));
  CHECK(has_line(script, "set -euo pipefail"));
  CHECK(has_line(script, "module load cuda/12.2"));
  CHECK(has_line(script, "export NCCL_SOCKET_IFNAME=ib0"));
  CHECK(has_line(script,
                 "export MASTER_PORT=$((20000 + (SLURM_JOB_ID + ${SCALESTUDY_STEP_INDEX:-0}) % "
                 "12768))"));
  CHECK(has_line(script,
                 "hosts=\"$(scontrol show hostnames "
                 "\"${SCALESTUDY_STEP_NODES:-$SLURM_JOB_NODELIST}\")\""));
  CHECK(has_line(script, "export MASTER_ADDR=\"${hosts%%$'\\n'*}\""));
  CHECK(has_line(script,
                 "srun ${SCALESTUDY_STEP_OPTIONS:-} --kill-on-bad-exit=1 "
                 "/opt/scalestudy/bin/scalestudy-launch --srun-task "
                 "--rank-log-dir " +
                     context.out_dir + " -- /opt/scalestudy/bin/scalestudy-train \\"));
  CHECK(has_line(script, "    --batch-size 64 \\"));
  CHECK(has_line(script, "    --model resnet18"));
  // Every #SBATCH line comes before the first command.
  CHECK(script.rfind("#SBATCH") < script.find("set -euo"));
  CHECK(bash_syntax_ok(script));
}

TEST_CASE("CPU runs, torchrun-style launch, container and profiler wrapper") {
  RunSpec spec = load_first_run(R"(
study: cpu
kind: weak
scale: [4]
per_gpu_batch: 16
slurm: {ranks_per_node: 2}
launcher: torchrun
container: {image: /images/train.sif, binds: ["/data:/data"]}
)");
  RenderContext context = context_for(spec);
  context.profile_wrapper = {"nsys", "profile", "-o", "{{out_dir}}/rank-{{run_id}}"};
  std::string script = render_sbatch_script(spec, context);
  CAPTURE(script);
  CHECK(script.find("--gpus-per-node") == std::string::npos);
  CHECK(script.find("--mem") == std::string::npos);
  CHECK(script.find("--time") == std::string::npos);
  CHECK(has_line(script, "#SBATCH --ntasks-per-node=2"));
  std::vector<std::string> command = launch_command(spec, context);
  std::vector<std::string> prefix(command.begin(), command.begin() + 19);
  CHECK(prefix == std::vector<std::string>{
                      "srun", "--ntasks=2", "--ntasks-per-node=1", "--kill-on-bad-exit=1",
                      "/opt/scalestudy/bin/scalestudy-launch", "--nproc-per-node", "2",
                      "--rank-log-dir", context.out_dir, "--", "apptainer", "exec", "--bind",
                      "/data:/data", "/images/train.sif", "nsys", "profile", "-o",
                      context.out_dir + "/rank-" + spec.run_id});
  CHECK(command[19] == context.binary_path);
  CHECK(bash_syntax_ok(script));

  spec.slurm.gpus_per_node = 2;
  command = launch_command(spec, context);
  CHECK(std::find(command.begin(), command.end(), "--nv") != command.end());
}

TEST_CASE("any program as a workload: leading args, flag spelling, parameters as variables") {
  RunSpec spec = load_first_run(R"(
study: script
scale: [2]
per_gpu_batch: 32
workload:
  binary: /usr/bin/python3
  args: [train.py, --record]
  flag_style: underscores
  run_flags: false
  env_params: {data_dir: DATA_DIR}
  data_dir: /data/fashion
  warmup_steps: 3
env: {OMP_NUM_THREADS: "1"}
)");
  CHECK(workload_argv(spec, "/usr/bin/python3", "/out") ==
        std::vector<std::string>{"/usr/bin/python3", "train.py", "--record", "--batch_size", "32",
                                 "--warmup_steps", "3"});
  CHECK(
      workload_environment(spec, "/out") ==
      std::map<std::string, std::string>{{"DATA_DIR", "/data/fashion"}, {"OMP_NUM_THREADS", "1"}});
  RenderContext context = context_for(spec);
  context.binary_path = "/usr/bin/python3";
  std::string script = render_sbatch_script(spec, context);
  CAPTURE(script);
  CHECK(has_line(script, "export DATA_DIR=/data/fashion"));
  CHECK(script.find("-- /usr/bin/python3 train.py --record \\\n    --batch_size 32") !=
        std::string::npos);
  CHECK(script.find("--run-id") == std::string::npos);
  CHECK(bash_syntax_ok(script));

  // The same program with scalestudy's run flags, spelled like the other flags.
  spec.invocation.run_flags = true;
  std::vector<std::string> argv = workload_argv(spec, "/usr/bin/python3", "/out");
  CHECK(std::find(argv.begin(), argv.end(), "--run_id") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "--out_dir") != argv.end());
}

TEST_CASE("a '%' in the results path is literal in #SBATCH --output and --error") {
  RunSpec spec = load_first_run(kGpuStudy);
  RenderContext context = context_for(spec);
  context.out_dir = "/results/100%done/" + spec.run_id;
  std::string script = render_sbatch_script(spec, context);
  CAPTURE(script);
  CHECK(has_line(script, "#SBATCH --output=/results/100%%done/" + spec.run_id + "/slurm-%j.out"));
  CHECK(has_line(script, "#SBATCH --error=/results/100%%done/" + spec.run_id + "/slurm-%j.err"));
}

TEST_CASE("slurm.reservation is a directive of its own, beside slurm.extra") {
  RunSpec spec = load_first_run(
      "study: r\nkind: strong\nscale: [1]\nglobal_batch: 8\nworkload: {model: small-cnn}\n"
      "slurm: {reservation: maint, extra: [--exclusive]}\n");
  CHECK(spec.slurm.reservation == "maint");
  const std::string script = render_sbatch_script(spec, context_for(spec));
  CAPTURE(script);
  CHECK(has_line(script, "#SBATCH --reservation=maint"));
  CHECK(has_line(script, "#SBATCH --exclusive"));
}

TEST_CASE("slurm.extra refuses what a key sets, naming the key; other options pass") {
  const std::string head =
      "study: s\nkind: strong\nscale: [1]\nglobal_batch: 8\nworkload: {model: small-cnn}\n";
  Result<Study> refused = load_study_text(head + "slurm: {extra: [--mem=900G]}\n", "x.yaml");
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message().find("'--mem=900G' sets what slurm.mem sets; use slurm.mem") !=
        std::string::npos);
  CHECK(load_study_text(head + "slurm: {extra: [--exclusive, \"--gres=nvme:1\", -t5]}\n", "x.yaml")
            .status()
            .message()
            .find("'-t5' sets what slurm.time sets") != std::string::npos);
  CHECK(load_study_text(
            head + "slurm: {extra: [--exclusive, \"--gres=nvme:1\", --signal=USR1@90]}\n", "x.yaml")
            .is_ok());
}

TEST_CASE("#SBATCH text fields with white space, which would carry options, are refused") {
  for (const char* field : {"partition", "account", "qos", "constraint", "reservation"}) {
    CAPTURE(field);
    std::string yaml = std::string("study: s\nkind: strong\nscale: [1]\nglobal_batch: 8\n") +
                       "workload: {model: small-cnn}\nslurm: {" + field +
                       ": \"gpu --exclusive\"}\n";
    Result<Study> study = load_study_text(yaml, "sbatch.yaml");
    REQUIRE_FALSE(study.is_ok());
    CHECK(study.status().message().find(std::string("field 'slurm.") + field + "'") !=
          std::string::npos);
    CHECK(study.status().message().find("one word") != std::string::npos);
  }
  Result<Study> substituted = load_study_text(
      "study: s\nkind: strong\nscale: [1]\nglobal_batch: 8\nworkload: {model: small-cnn, "
      "part: \"a b\"}\nslurm: {partition: \"${part}\"}\n",
      "sbatch.yaml");
  CHECK_FALSE(substituted.is_ok());
}

TEST_CASE("render contexts with relative or multi-line paths are refused") {
  RenderContext context;
  context.out_dir = "relative/out";
  context.binary_path = "/bin/train";
  CHECK_FALSE(check_render_context(context).is_ok());
  context.out_dir = "/out\n/x";
  CHECK_FALSE(check_render_context(context).is_ok());
  context.out_dir = "/out";
  CHECK(check_render_context(context).is_ok());
}

TEST_CASE("shell quoting: plain words stay, everything else is single-quoted") {
  CHECK(shell_quote("resnet18") == "resnet18");
  CHECK(shell_quote("/a/b-c_d.e:f=g") == "/a/b-c_d.e:f=g");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$(x)") == "'$(x)'");
  CHECK(shell_quote("~") == "'~'");
}

TEST_CASE("text templates") {
  auto parsed = TextTemplate::parse("a {{x}} b {{y}}{{x}}\n", {"x", "y"});
  REQUIRE(parsed.is_ok());
  CHECK(parsed->render({"1", "2"}) == "a 1 b 21\n");
  CHECK_FALSE(TextTemplate::parse("{{z}}", {"x"}).is_ok());
  CHECK_FALSE(TextTemplate::parse("{{x", {"x"}).is_ok());
}

}  // namespace
}  // namespace scalestudy
