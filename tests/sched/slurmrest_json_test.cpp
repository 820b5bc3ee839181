#include "orchestrator/sched/slurmrest_json.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::sched;
using nlohmann::json;

TEST_CASE("the submit body carries the script's #SBATCH options as job properties") {
  const std::string script =
      "#!/bin/bash\n#SBATCH --job-name=quick-abc\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=2\n"
      "#SBATCH -t 1:30:00\n#SBATCH --mem=2G\n#SBATCH --signal=B:USR1@60\n#SBATCH -p debug\n"
      "#SBATCH --output=/r/slurm-%j.out\nsrun train\n";
  auto body = rest_submit_body(script, {"--array=0-3%2", "--hold"}, {{"PATH", "/usr/bin"}}, "/r");
  REQUIRE(body.is_ok());
  const json& job = (*body)["job"];
  CHECK((*body)["script"] == script);
  CHECK(job["name"] == "quick-abc");
  CHECK(job["nodes"] == json::array({2, 2}));
  CHECK(job["tasks_per_node"] == 2);
  CHECK(job["tasks"] == 4);  // as sbatch derives it; slurmrestd would default to 1
  CHECK(job["time_limit"] == 90);
  CHECK(job["memory_per_node"] == 2048);
  CHECK(job["signal"] == "USR1@60");
  CHECK(job["partition"] == "debug");
  CHECK(job["standard_output"] == "/r/slurm-%j.out");
  CHECK(job["array"] == "0-3%2");
  CHECK(job["hold"] == true);
  CHECK(job["current_working_directory"] == "/r");
  CHECK(job["environment"]["PATH"] == "/usr/bin");
}

TEST_CASE("options the REST API cannot express are refused by name") {
  auto body = rest_submit_body("#!/bin/bash\n#SBATCH --gres=gpu:4\n", {}, {}, "/r");
  REQUIRE_FALSE(body.is_ok());
  CHECK(body.status().message().find("--gres") != std::string::npos);
  auto bad = rest_submit_body("#!/bin/bash\n#SBATCH --nodes=two\n", {}, {}, "/r");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message().find("--nodes=two") != std::string::npos);
}

TEST_CASE("time limits in every sbatch format become minutes") {
  auto minutes = [](const std::string& time) {
    auto body = rest_submit_body("#SBATCH --time=" + time + "\n", {}, {}, "/");
    return body.is_ok() ? (*body)["job"]["time_limit"].get<int>() : -1;
  };
  CHECK(minutes("5") == 5);
  CHECK(minutes("5:30") == 6);
  CHECK(minutes("2:00:00") == 120);
  CHECK(minutes("1-0") == 1440);
  CHECK(minutes("1-2:30") == 1590);
}

TEST_CASE("submit answers: a job id (even with a held warning) or slurmrestd's errors") {
  auto held = parse_rest_submit_response(
      json::parse(R"({"job_id": 17, "errors": [{"error": "Job is in held state"}]})"));
  REQUIRE(held.is_ok());
  CHECK(*held == "17");
  auto refused = parse_rest_submit_response(json::parse(
      R"({"errors": [{"error": "Invalid SIGNAL specification"}, {"error": "Unspecified error", "description": "Unable to process key \"signal\""}]})"));
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message().find("Invalid SIGNAL specification") != std::string::npos);
}

TEST_CASE("job lists from slurmctld and slurmdbd become states per job id") {
  auto live = parse_rest_jobs(json::parse(R"({"jobs": [
      {"job_id": 6, "array_job_id": 6, "array_task_id": null, "array_task_string": "0,2%2",
       "job_state": "PENDING", "state_reason": "JobHeldUser", "exit_code": 0},
      {"job_id": 9, "array_job_id": 6, "array_task_id": 1, "job_state": "CANCELLED",
       "state_reason": "None", "exit_code": 0},
      {"job_id": 10, "array_job_id": 0, "array_task_id": null, "job_state": "FAILED",
       "state_reason": "NonZeroExitCode", "exit_code": 2}]})"));
  CHECK(live["6_0"].state == JobState::kPending);
  CHECK(live["6_2"].reason == "JobHeldUser");
  CHECK(live.count("6_1") == 1);
  CHECK(live["6_1"].state == JobState::kCancelled);
  CHECK(live["10"].state == JobState::kFailed);
  CHECK(live["10"].reason == "exit code 2 (NonZeroExitCode)");

  // A job that could not start as its user: SLURM's reason and the output file it needed,
  // not the meaningless exit code 4021; a requeued job's restart count.
  auto launch = parse_rest_jobs(json::parse(R"({"jobs": [
      {"job_id": 82, "job_state": "FAILED", "state_reason": "JobLaunchFailure",
       "exit_code": 4021, "user_name": "nobody", "restart_cnt": 0,
       "standard_output": "/r/s/runs/abc/slurm-%j.out"},
      {"job_id": 83, "job_state": "PENDING", "state_reason": "BeginTime", "restart_cnt": 1}]})"));
  CHECK(launch["82"].state == JobState::kFailed);
  CHECK_FALSE(launch["82"].exit_code.has_value());
  CHECK(launch["82"].reason ==
        "JobLaunchFailure: SLURM could not start the batch script as user nobody (can nobody "
        "create /r/s/runs/abc/slurm-82.out?)");
  CHECK(launch["83"].restarts == 1);
  CHECK(launch["82"].restarts == 0);

  auto accounted = parse_rest_db_jobs(json::parse(R"({"jobs": [
      {"job_id": 3, "array": {"job_id": 1, "task_id": 1}, "state": {"current": "TIMEOUT", "reason": "None"},
       "exit_code": {"status": "SUCCESS", "return_code": 0}},
      {"job_id": 12, "array": {"job_id": 0, "task_id": null}, "state": {"current": "COMPLETED", "reason": "None"},
       "exit_code": {"status": "SUCCESS", "return_code": 0}}]})"));
  CHECK(accounted["1_1"].state == JobState::kTimeout);
  CHECK(accounted["12"].state == JobState::kCompleted);
}

TEST_CASE("where and when a job ran, from slurmctld and slurmdbd alike") {
  // As slurmrestd 26.05 (v0.0.44) answered for a job that the hang watchdog stopped.
  auto live = parse_rest_jobs(json::parse(R"({"jobs": [
      {"job_id": 4, "job_state": ["FAILED"], "state_reason": "NonZeroExitCode",
       "exit_code": {"status": ["FAILED"], "return_code": {"set": true, "infinite": false, "number": 124}},
       "nodes": "node1",
       "submit_time": {"set": true, "infinite": false, "number": 1796591735},
       "start_time": {"set": true, "infinite": false, "number": 1796591738},
       "end_time": {"set": true, "infinite": false, "number": 1796591755}},
      {"job_id": 5, "job_state": ["RUNNING"], "state_reason": "None", "nodes": "node[2-3]",
       "start_time": {"set": true, "infinite": false, "number": 1796591756},
       "end_time": {"set": true, "infinite": false, "number": 1796592356}}]})"));
  CHECK(live["4"].placement.node_list == "node1");
  CHECK(live["4"].placement.queued_at == "2026-12-06T21:15:35Z");
  CHECK(live["4"].placement.started_at == "2026-12-06T21:15:38Z");
  CHECK(live["4"].placement.ended_at == "2026-12-06T21:15:55Z");
  CHECK(live["5"].placement.node_list == "node[2-3]");
  CHECK(live["5"].placement.ended_at == "");  // its time limit's end, not an end
  auto accounted = parse_rest_db_jobs(json::parse(R"({"jobs": [
      {"job_id": 4, "state": {"current": ["FAILED"], "reason": "NonZeroExitCode"},
       "exit_code": {"status": ["FAILED"], "return_code": {"set": true, "infinite": false, "number": 124}},
       "nodes": "node1",
       "time": {"elapsed": 17, "end": 1796591755, "start": 1796591738, "submission": 1796591735}}]})"));
  CHECK(accounted["4"].placement.node_list == "node1");
  CHECK(accounted["4"].placement.started_at == "2026-12-06T21:15:38Z");
  CHECK(accounted["4"].placement.ended_at == "2026-12-06T21:15:55Z");
}

TEST_CASE("a plain job's accounting records: the newest by submission time counts") {
  // slurmrestd lists each run of a requeued job; the newest wins wherever it is listed.
  json answer = json::parse(R"({"jobs": [
      {"job_id": 40, "state": {"current": "COMPLETED"}, "time": {"submission": 1767261612},
       "exit_code": {"return_code": 0}},
      {"job_id": 40, "state": {"current": "NODE_FAIL"}, "time": {"submission": 1767261600},
       "exit_code": {"return_code": 1}}]})");
  CHECK(parse_rest_db_jobs(answer).at("40").state == JobState::kCompleted);
  std::swap(answer["jobs"][0], answer["jobs"][1]);
  CHECK(parse_rest_db_jobs(answer).at("40").state == JobState::kCompleted);
  // Submitted within one second: the one restarted more often; a missing time is oldest.
  answer["jobs"][0]["time"]["submission"] = 1767261612;
  answer["jobs"][1]["restart_cnt"] = 1;
  answer["jobs"][0]["restart_cnt"] = 0;
  CHECK(parse_rest_db_jobs(answer).at("40").state == JobState::kCompleted);
  answer["jobs"][1]["time"].erase("submission");
  CHECK(parse_rest_db_jobs(answer).at("40").state == JobState::kNodeFail);
}

TEST_CASE("a retry's --exclude reaches slurmrestd in each version's shape") {
  const std::string script = "#!/bin/bash\n#SBATCH --exclude=node[1-2],node7\nsrun train\n";
  auto typed = rest_submit_body(script, {}, {}, "/r", RestApi{41});
  REQUIRE(typed.is_ok());
  CHECK((*typed)["job"]["excluded_nodes"] == json::array({"node[1-2]", "node7"}));
  auto old = rest_submit_body(script, {}, {}, "/r");
  REQUIRE(old.is_ok());
  CHECK((*old)["job"]["exclude"] == "node[1-2],node7");
}

TEST_CASE("a job killed by a signal reads 128 + signal, as sacct's 0:<signal> does") {
  // slurmrestd 26.05's answer for an allocation whose output file its user could not open
  // (sacct: FAILED 0:53, state_reason RaisedSignal), from slurmctld and from slurmdbd.
  const json signaled = json::parse(R"({"status": ["SIGNALED"],
      "return_code": {"set": false, "infinite": false, "number": 0},
      "signal": {"id": {"set": true, "infinite": false, "number": 53}, "name": "53"}})");
  auto live = parse_rest_jobs(json{{"jobs",
                                    {{{"job_id", 733},
                                      {"job_state", {"FAILED"}},
                                      {"state_reason", "RaisedSignal"},
                                      {"exit_code", signaled}}}}});
  REQUIRE(live["733"].exit_code.has_value());
  CHECK(*live["733"].exit_code == 181);
  auto accounted = parse_rest_db_jobs(
      json{{"jobs",
            {{{"job_id", 733}, {"state", {{"current", {"FAILED"}}}}, {"exit_code", signaled}}}}});
  CHECK(accounted["733"].exit_code == std::optional<int>(181));
  // v0.0.40's plain numbers, and a return code that is set, are read as they are.
  CHECK(*parse_rest_jobs(json::parse(R"({"jobs": [{"job_id": 5, "job_state": "FAILED",
      "exit_code": {"status": ["SIGNALED"], "return_code": 0,
                    "signal": {"id": 11, "name": "SEGV"}}}]})"))["5"]
             .exit_code == 139);
  CHECK(*parse_rest_jobs(json::parse(R"({"jobs": [{"job_id": 5, "job_state": "FAILED",
      "exit_code": {"status": ["EXITED"], "return_code": {"set": true, "number": 2},
                    "signal": {"id": {"set": false, "number": 0}, "name": ""}}}]})"))["5"]
             .exit_code == 2);
}
