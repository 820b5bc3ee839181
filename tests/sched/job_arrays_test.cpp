#include "orchestrator/sched/job_arrays.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "orchestrator/sched/batch_jobs.hpp"
#include "tests/sched/prepared_run_fixture.hpp"

using namespace scalestudy::sched;
namespace fs = std::filesystem;

namespace {

std::string script(const std::string& name, int nodes, const std::string& launch) {
  return "#!/bin/bash\n#SBATCH --job-name=" + name + "\n#SBATCH --output=/r/" + name +
         "/slurm-%j.out\n#SBATCH --nodes=" + std::to_string(nodes) +
         "\n#SBATCH --ntasks-per-node=2\n#SBATCH --time=5  # minutes\n" + launch + "\n";
}

PreparedRun prepared(const fs::path& dir, const std::string& run_id, int nodes) {
  return scalestudy::sched_testing::prepared_run(
      dir, "demo", run_id, script(run_id, nodes, "srun train --lr " + run_id));
}

// Runs a, b and c of one node each, in a fresh temporary folder `name`.
std::vector<PreparedRun> three_single_node_runs(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  return {prepared(dir, "a", 1), prepared(dir, "b", 1), prepared(dir, "c", 1)};
}

}  // namespace

TEST_CASE("allocation directives drop what names a single run") {
  auto directives = allocation_directives(script("a", 2, "srun x") + "#SBATCH -J other -o x.out\n");
  CHECK(directives == std::vector<std::string>{"--nodes=2", "--ntasks-per-node=2", "--time=5"});
}

TEST_CASE("runs group by allocation shape, whatever their launch lines") {
  fs::path dir = fs::temp_directory_path() / "scalestudy_arrays_group";
  fs::remove_all(dir);
  std::vector<PreparedRun> runs = {prepared(dir, "r1", 1), prepared(dir, "r2", 2),
                                   prepared(dir, "r3", 1), prepared(dir, "r4", 1)};
  auto groups = group_by_shape(runs);
  REQUIRE(groups.is_ok());
  REQUIRE(groups->size() == 2);
  CHECK((*groups)[0] == std::vector<size_t>{0, 2, 3});
  CHECK((*groups)[1] == std::vector<size_t>{1});

  BatchOptions options;
  options.array_throttle = 2;
  options.array_script_dir = (dir / "arrays").string();
  options.extra_sbatch_args = {"--hold"};
  auto jobs = plan_batch_jobs(runs, options);
  REQUIRE(jobs.is_ok());
  REQUIRE(jobs->size() == 2);
  const BatchJob& array = (*jobs)[0];
  CHECK(array.is_array);
  CHECK(array.submit_options == std::vector<std::string>{"--array=0-2%2", "--hold"});
  std::ifstream wrapper_file(array.script_path);
  std::string wrapper((std::istreambuf_iterator<char>(wrapper_file)), {});
  CHECK(wrapper.find("#SBATCH --nodes=1\n") != std::string::npos);
  CHECK(wrapper.find("#SBATCH --job-name=demo-array\n") != std::string::npos);
  CHECK(wrapper.find("--job-name=r1") == std::string::npos);
  // Task i runs the i-th run's own script.
  size_t r1 = wrapper.find(runs[0].script_path), r3 = wrapper.find(runs[2].script_path),
         r4 = wrapper.find(runs[3].script_path);
  CHECK(r1 < r3);
  CHECK(r3 < r4);
  CHECK(wrapper.find(runs[1].script_path) == std::string::npos);
  CHECK_FALSE((*jobs)[1].is_array);
  CHECK((*jobs)[1].script_path == runs[1].script_path);

  // Array tasks come back as <id>_<task> in task order; ordered studies chain jobs.
  options.ordered = true;
  auto chained = plan_batch_jobs(runs, options);
  REQUIRE(chained.is_ok());
  CHECK(chained->size() == 4);
  std::vector<std::vector<std::string>> seen_options;
  int next_id = 100;
  std::vector<Submission> reported;
  auto submitted = submit_batch_jobs(
      *chained, options,
      [&](const BatchJob&,
          const std::vector<std::string>& submit_options) -> scalestudy::Result<std::string> {
        seen_options.push_back(submit_options);
        return std::to_string(next_id++);
      },
      {[&](const Submission& s) { reported.push_back(s); }, nullptr});
  REQUIRE(submitted.is_ok());
  CHECK(reported.size() == 4);
  CHECK(seen_options[0] == std::vector<std::string>{"--hold"});
  CHECK(seen_options[1] == std::vector<std::string>{"--hold", "--dependency=afterany:100"});
  CHECK(seen_options[3].back() == "--dependency=afterany:102");

  options.ordered = false;
  reported.clear();
  auto array_ids = submit_batch_jobs(
      *jobs, options,
      [](const BatchJob&, const std::vector<std::string>&) -> scalestudy::Result<std::string> {
        return std::string("7");
      },
      {[&](const Submission& s) { reported.push_back(s); }, nullptr});
  REQUIRE(array_ids.is_ok());
  REQUIRE(reported.size() == 4);
  CHECK(reported[0].job_id == "7_0");
  CHECK(reported[1].run_id == "r3");
  CHECK(reported[1].job_id == "7_1");
  CHECK(reported[2].job_id == "7_2");
  CHECK(reported[3].job_id == "7");
}

TEST_CASE("a failing submission stops the batch after reporting what went through") {
  std::vector<PreparedRun> runs = three_single_node_runs("scalestudy_arrays_fail");
  BatchOptions options;
  options.use_job_arrays = false;
  auto jobs = plan_batch_jobs(runs, options);
  REQUIRE(jobs.is_ok());
  int calls = 0;
  std::vector<Submission> reported;
  auto result = submit_batch_jobs(
      *jobs, options,
      [&](const BatchJob&, const std::vector<std::string>&) -> scalestudy::Result<std::string> {
        if (++calls == 2) return scalestudy::Status::error("sbatch: Invalid partition name");
        return std::string("5");
      },
      {[&](const Submission& s) { reported.push_back(s); }, nullptr});
  CHECK_FALSE(result.is_ok());
  // The error becomes the reason of b and c alike: it names neither.
  CHECK(result.status().message() == "sbatch: Invalid partition name");
  REQUIRE(reported.size() == 1);
  CHECK(reported[0].run_id == "a");
}

TEST_CASE("a submit-limit refusal defers the runs not yet submitted instead of failing them") {
  std::vector<PreparedRun> runs = three_single_node_runs("scalestudy_arrays_limit");
  BatchOptions options;
  options.use_job_arrays = false;
  auto jobs = plan_batch_jobs(runs, options);
  REQUIRE(jobs.is_ok());
  int calls = 0;
  std::vector<Submission> reported;
  std::vector<std::pair<std::string, std::string>> deferred;
  SubmitCallbacks callbacks;
  callbacks.submitted = [&](const Submission& s) { reported.push_back(s); };
  callbacks.deferred = [&](const std::string& run_id, const std::string& limit) {
    deferred.emplace_back(run_id, limit);
  };
  auto result = submit_batch_jobs(
      *jobs, options,
      [&](const BatchJob&, const std::vector<std::string>&) -> scalestudy::Result<std::string> {
        if (++calls == 2) {
          return scalestudy::Status::error(
              "`sbatch --parsable x` exited with code 1: sbatch: error: "
              "QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch job submission failed");
        }
        return std::string("5");
      },
      callbacks);
  REQUIRE(result.is_ok());
  CHECK(calls == 2);  // nothing after the refusal is tried
  REQUIRE(result->size() == 1);
  CHECK((*result)[0].run_id == "a");
  REQUIRE(deferred.size() == 2);
  CHECK(deferred[0] ==
        std::make_pair(std::string("b"), std::string("QOSMaxSubmitJobPerUserLimit")));
  CHECK(deferred[1].first == "c");
}
