// workload.flags: the words each flag form gives a program (--key value, --key=value,
// Hydra's key=value and +key=value, dotted names, positional words, --flag/--no-flag),
// values that need quoting, scalestudy's reserved names as the program's own with
// run_flags: false, ${run_dir}, and the job script that shows the line as the program
// receives it.
#include <doctest/doctest.h>

#include <algorithm>

#include "orchestrator/sched/render/job_script.hpp"
#include "tests/study/study_test_util.hpp"

namespace scalestudy {
namespace {

using testing::load_error;
using testing::load_ok;

std::vector<std::string> words_of(const RunSpec& spec, const std::string& out_dir = "/out") {
  std::vector<std::string> argv = workload_argv(spec, "/bin/prog", out_dir);
  return std::vector<std::string>(argv.begin() + 1 + spec.invocation.args.size(), argv.end());
}

RunSpec first_run(const std::string& workload_yaml) {
  Study study =
      load_ok("study: s\nper_gpu_batch: 12\nworkload:\n  binary: /bin/prog\n" + workload_yaml);
  REQUIRE_FALSE(study.runs.empty());
  return study.runs.front();
}

TEST_CASE("equals: --key=value, one word per flag, names as written") {
  RunSpec run = first_run("  flags: equals\n  run_flags: false\n  block_size: 64\n");
  CHECK(words_of(run) == std::vector<std::string>{"--batch_size=12", "--block_size=64"});
}

TEST_CASE("flag_style keeps its two forms, and is refused beside flags") {
  RunSpec run = first_run("  flag_style: underscores\n  run_flags: false\n  block_size: 64\n");
  CHECK(words_of(run) == std::vector<std::string>{"--batch_size", "12", "--block_size", "64"});
  CHECK(load_error("study: s\nworkload:\n  binary: /bin/prog\n  flag_style: equals\n")
            .find("inline.yaml:4:15: field 'workload.flag_style'") != std::string::npos);
  CHECK(load_error("study: s\nworkload:\n  binary: /bin/prog\n  flags: equals\n"
                   "  flag_style: underscores\n")
            .find("inline.yaml:5:15: field 'workload.flag_style'") != std::string::npos);
}

TEST_CASE("hydra: key=value, dotted and + names, values Hydra reads back unchanged") {
  RunSpec run = first_run(
      "  flags:\n"
      "    form: hydra\n"
      "    names: {n_layer: model.n_layer, seed: +seed, batch_size: data.batch_size}\n"
      "  run_flags: false\n"
      "  n_layer: 2\n  seed: 7\n  note: \"it's a, b=c\"\n  path: /a/b.txt\n");
  CHECK(words_of(run) == std::vector<std::string>{"data.batch_size=12", "model.n_layer=2",
                                                  "note='it\\'s a, b=c'", "path=/a/b.txt",
                                                  "+seed=7"});
}

TEST_CASE("dashes with dotted names, positional words, switches and a parameter not passed") {
  RunSpec run = first_run(
      "  flags:\n"
      "    form: dashes\n"
      "    booleans: switch\n"
      "    names: {local_batch: training.local_batch_size, data: positional, note: none}\n"
      "  run_flags: false\n"
      "  local_batch: 8\n  data: /data/x\n  compile: true\n  fused: false\n  note: x\n");
  CHECK(words_of(run) == std::vector<std::string>{"/data/x", "--batch-size", "12", "--compile",
                                                  "--no-fused", "--training.local_batch_size",
                                                  "8"});
}

TEST_CASE("run_id and out_dir are the program's own without run flags; ${run_dir} is the run's") {
  RunSpec run = first_run(
      "  flags: equals\n  run_flags: false\n  out_dir: ${run_dir}/ckpt\n  run_id: mine\n"
      "env: {LOG_DIR: '${run_dir}/logs'}\n");
  CHECK(run.params.at("out_dir") == "${run_dir}/ckpt");
  CHECK(words_of(run, "/results/s/runs/abc") ==
        std::vector<std::string>{"--batch_size=12", "--out_dir=/results/s/runs/abc/ckpt",
                                 "--run_id=mine"});
  CHECK(workload_environment(run, "/results/s/runs/abc").at("LOG_DIR") ==
        "/results/s/runs/abc/logs");
  // With scalestudy's own flags, the names stay scalestudy's.
  CHECK(load_error("study: s\nworkload:\n  binary: /bin/prog\n  out_dir: /tmp/x\n")
            .find("inline.yaml:4:3: field 'workload.out_dir'") != std::string::npos);
  CHECK(load_error("study: s\nworkload:\n  binary: /bin/prog\n  run_flags: false\n  run_dir: x\n")
            .find("inline.yaml:5:3: field 'workload.run_dir'") != std::string::npos);
}

TEST_CASE("the job script shows each flag as the program receives it, quoted for the shell") {
  RunSpec run = first_run(
      "  flags: {form: hydra, names: {extra: +extra}}\n  run_flags: false\n"
      "  extra: \"$(touch x); 'q'\"\n");
  RenderContext context;
  context.out_dir = "/results/s/runs/" + run.run_id;
  context.binary_path = "/bin/prog";
  context.launch_helper_path = "/bin/scalestudy-launch";
  const std::string script = render_sbatch_script(run, context);
  CAPTURE(script);
  CHECK(script.find("/bin/prog \\\n    batch_size=12 \\\n    '+extra='\\''$(touch x); "
                    "\\'\\''q\\'\\'''\\'''") != std::string::npos);
}

TEST_CASE("the flag form is part of the run id; studies without it keep theirs") {
  const std::string base = "study: s\nworkload:\n  binary: /bin/prog\n  run_flags: false\n";
  const std::string classic = load_ok(base).runs.front().run_id;
  CHECK(load_ok(base + "  flags: dashes\n").runs.front().run_id == classic);
  CHECK(load_ok(base + "  flags: equals\n").runs.front().run_id != classic);
  CHECK(load_ok(base + "  flags: {booleans: switch}\n").runs.front().run_id != classic);
}

}  // namespace
}  // namespace scalestudy
