// The slurmrest backend against every data parser it speaks from v0.0.40 on: answers recorded
// from real slurmrestd 24.11.5 (v0.0.40-42) and 26.05.5 (v0.0.42-45) on the local clusters
// (tests/sched/slurmrest_answers/record.sh: a two-node job with two steps, a job exiting 3,
// a held array of three), the version chosen from each server's OpenAPI paths (22.05's
// too), and the
// submit body in the newer shapes. v0.0.38's shapes are slurmrest_json_test.cpp's.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/sched/slurmrest_api.hpp"
#include "orchestrator/sched/slurmrest_json.hpp"
#include "orchestrator/sched/slurmrest_limits.hpp"
#include "tests/support/cli_test_support.hpp"

using namespace scalestudy::sched;
using nlohmann::json;

namespace {

json answer(const std::string& release, const std::string& api, const std::string& name) {
  const std::string path = scalestudy::testing::source_dir() + "/tests/sched/slurmrest_answers/" +
                           release + "/" + api + "/" + name + ".json";
  std::ifstream file(path);
  REQUIRE_MESSAGE(file.good(), path);
  return json::parse(file);
}

std::string job_id(const json& submitted) {
  auto id = parse_rest_submit_response(submitted);
  REQUIRE(id.is_ok());
  return *id;
}

void check_recorded(const std::string& release, const std::string& api) {
  CAPTURE(release);
  CAPTURE(api);
  const std::string completed = job_id(answer(release, api, "submit_completing"));
  const std::string failed = job_id(answer(release, api, "submit_failing"));
  const std::string array = job_id(answer(release, api, "submit_held_array"));

  auto live = parse_rest_jobs(answer(release, api, "jobs"));
  REQUIRE(live.count(completed) == 1);
  CHECK(live[completed].state == JobState::kCompleted);
  REQUIRE(live.count(failed) == 1);
  CHECK(live[failed].state == JobState::kFailed);
  CHECK(live[failed].exit_code == 3);
  CHECK(live[failed].reason == "exit code 3 (NonZeroExitCode)");
  CHECK(live[completed].placement.node_list == "node[1-2]");  // the two-node job
  CHECK(live[failed].placement.node_list == "node1");
  CHECK_FALSE(live[failed].placement.ended_at.empty());
  for (const char* task : {"_0", "_1", "_2"}) {  // the held array's tasks, one id each
    REQUIRE(live.count(array + task) == 1);
    CHECK(live[array + task].state == JobState::kPending);
    CHECK(live[array + task].reason == "JobHeldUser");
  }

  auto accounted = parse_rest_db_jobs(answer(release, api, "db_job_failed"));
  REQUIRE(accounted.count(failed) == 1);
  CHECK(accounted[failed].state == JobState::kFailed);
  CHECK(accounted[failed].exit_code == 3);
  CHECK(accounted[failed].placement.node_list == "node1");
  CHECK_FALSE(accounted[failed].placement.started_at.empty());
  auto allocations = parse_rest_db_allocations(answer(release, api, "db_job_completed"));
  REQUIRE(allocations.count(completed) == 1);
  const AllocationRecord& allocation = allocations[completed];
  CHECK(allocation.state == "COMPLETED");
  CHECK(allocation.queued_at.size() == 20);  // 2026-12-06T15:03:57Z
  REQUIRE(allocation.steps.size() == 2);     // srun true; srun -N1 true (not batch, extern)
  CHECK(allocation.steps[0].step_id == completed + ".0");
  CHECK(allocation.steps[1].step_id == completed + ".1");
  CHECK(allocation.steps[0].name == "true");
  CHECK(allocation.steps[0].state == "COMPLETED");
  CHECK(allocation.steps[0].exit_code == 0);
  CHECK(allocation.steps[0].node_list == "node[1-2]");
  CHECK_FALSE(allocation.steps[1].started_at.empty());
  CHECK_FALSE(allocation.steps[1].ended_at.empty());

  PartitionTimes times = rest_partition_times(answer(release, api, "partitions"));
  CHECK(times.max_minutes["small"] == 5);
  CHECK(times.max_minutes["big"] == 60);
  CHECK(times.max_minutes.count("debug") == 0);  // MaxTime=INFINITE
  // Only v0.0.45 (and v0.0.38) flag the default partition.
  CHECK(times.default_partition == (api == "v0.0.45" ? "debug" : ""));
  // Recorded with no limit set: none, not a limit of 0 or of 4294967295.
  CHECK_FALSE(rest_submit_limit(answer(release, api, "associations"), answer(release, api, "qos"),
                                release == "24.11" ? "nobody" : "scalestudy-jobs")
                  .has_value());
  CHECK(rest_errors(answer(release, api, "cancel")).empty());
}

}  // namespace

TEST_CASE("answers of slurmrestd 24.11 (v0.0.40-42) and 26.05 (v0.0.42-45) read alike") {
  for (const char* api : {"v0.0.40", "v0.0.41", "v0.0.42"}) check_recorded("24.11", api);
  for (const char* api : {"v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"}) check_recorded("26.05", api);
}

TEST_CASE("the newest data parser both sides speak is chosen; a pin the server lacks is refused") {
  auto paths = [](const std::string& release) {
    std::ifstream file(scalestudy::testing::source_dir() + "/tests/sched/slurmrest_answers/" +
                       release + "/openapi_paths.json");
    return offered_rest_apis(json::parse(file));
  };
  CHECK(rest_api_names(paths("24.11")) == "v0.0.40, v0.0.41, v0.0.42");
  CHECK(rest_api_names(paths("26.05")) == "v0.0.42, v0.0.43, v0.0.44, v0.0.45");
  CHECK(choose_rest_api(paths("24.11"), "")->name() == "v0.0.42");
  CHECK(choose_rest_api(paths("26.05"), "")->name() == "v0.0.45");
  CHECK(choose_rest_api(paths("26.05"), "v0.0.43")->name() == "v0.0.43");

  auto missing = choose_rest_api(paths("26.05"), "v0.0.40");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message() ==
        "slurmrestd API v0.0.40 is not offered by this slurmrestd (it offers v0.0.42, v0.0.43, "
        "v0.0.44, v0.0.45)");
  auto unknown = choose_rest_api(paths("26.05"), "v0.0.39");
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message().find("not one scalestudy speaks") != std::string::npos);
  CHECK_FALSE(choose_rest_api(paths("26.05"), "0.0.45").is_ok());

  // 22.05 as the local cluster starts it (v0.0.37 and v0.0.38 loaded): v0.0.38. A newer
  // server that has only versions this backend does not know yet: refused, naming them.
  CHECK(rest_api_names(paths("22.05")) == "v0.0.37, v0.0.38");
  CHECK(choose_rest_api(paths("22.05"), "")->name() == "v0.0.38");
  json future_server = {{"paths", {{"/slurm/v0.0.46/ping", {}}, {"/slurm/v0.0.47/jobs", {}}}}};
  auto none = choose_rest_api(offered_rest_apis(future_server), "");
  REQUIRE_FALSE(none.is_ok());
  CHECK(none.status().message().find("offers v0.0.46, v0.0.47") != std::string::npos);
}

TEST_CASE("from v0.0.40 on the submit body takes the newer shapes") {
  const std::string script =
      "#!/bin/bash\n#SBATCH --job-name=quick-abc\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=2\n"
      "#SBATCH -t 1:30:00\n#SBATCH --mem=2G\n#SBATCH --signal=B:USR1@60\n#SBATCH --exclusive\n"
      "#SBATCH --gpus-per-node=4\nsrun train\n";
  auto body = rest_submit_body(script, {"--array=0-3%2", "--hold"}, {{"PATH", "/usr/bin"}}, "/r",
                               RestApi{45});
  REQUIRE(body.is_ok());
  CHECK_FALSE(body->contains("script"));  // deprecated at the top level since v0.0.42
  const json& job = (*body)["job"];
  CHECK(job["script"] == script);
  CHECK(job["environment"] == json::array({"PATH=/usr/bin"}));
  CHECK(job["nodes"] == "2");
  CHECK(job["tasks"] == 4);
  CHECK(job["time_limit"] == json({{"set", true}, {"infinite", false}, {"number", 90}}));
  CHECK(job["memory_per_node"] == json({{"set", true}, {"infinite", false}, {"number", 2048}}));
  CHECK(job["kill_warning_signal"] == "USR1");
  CHECK(job["kill_warning_delay"]["number"] == 60);
  CHECK(job["kill_warning_flags"] == json::array({"BATCH_JOB"}));  // B: kept, unlike v0.0.38
  CHECK(job["shared"] == json::array({"none"}));
  CHECK(job["tres_per_node"] == "gres/gpu:4");
  CHECK(job["array"] == "0-3%2");
  CHECK(job["hold"] == true);
  auto range = rest_submit_body("#SBATCH --nodes=2-4\n", {}, {}, "/r", RestApi{40});
  REQUIRE(range.is_ok());
  CHECK((*range)["job"]["nodes"] == "2-4");
}
