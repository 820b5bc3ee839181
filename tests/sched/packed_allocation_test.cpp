#include "orchestrator/sched/packed_allocation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "orchestrator/common/failure_class.hpp"
#include "orchestrator/sched/packed_run_marks.hpp"
#include "orchestrator/sched/packing_plan.hpp"
#include "orchestrator/sched/slurmrest_json.hpp"
#include "tests/sched/prepared_run_fixture.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/shell_output.hpp"

using namespace scalestudy;
using namespace scalestudy::sched;
namespace fs = std::filesystem;

namespace {

PreparedRun packed_run(const fs::path& dir, const std::string& run_id, int nodes) {
  PreparedRun run = scalestudy::sched_testing::prepared_run(
      dir, "demo", run_id,
      "#!/bin/bash\n#SBATCH --job-name=demo-" + run_id +
          "\n#SBATCH --nodes=" + std::to_string(nodes) +
          "\n#SBATCH --ntasks-per-node=2\n#SBATCH --time=0:03:00\n"
          "#SBATCH --signal=TERM@45\n#SBATCH --partition=debug\nsrun train\n");
  run.spec.nodes = nodes;
  run.spec.tasks_per_node = 2;
  run.spec.slurm.time_limit_minutes = 3;
  return run;
}

std::vector<PreparedRun> ladder(const fs::path& dir) {
  return {packed_run(dir, "a1", 1), packed_run(dir, "a2", 1), packed_run(dir, "b1", 2),
          packed_run(dir, "b2", 2), packed_run(dir, "c1", 4), packed_run(dir, "c2", 4)};
}

// The packed job of all `runs` with the slurm.time sum of a serial plan (6 x 3 minutes, and
// a minute for the wrapper's stop lead).
Result<BatchJob> packed_job(const std::vector<PreparedRun>& runs, const fs::path& dir,
                            bool concurrent = false) {
  std::vector<const PreparedRun*> members;
  for (const PreparedRun& run : runs) members.push_back(&run);
  return write_packed_job(members, dir.string(), concurrent, 19);
}

bool has_line(const std::string& text, const std::string& line) {
  std::stringstream lines(text);
  for (std::string candidate; std::getline(lines, candidate);) {
    if (candidate == line) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a packed job is one allocation of the largest run for the time it is given") {
  fs::path dir = testing::scratch_dir("packed_script");
  auto runs = ladder(dir);
  auto job = packed_job(runs, dir / "arrays");
  REQUIRE(job);
  CHECK(job->is_packed);
  REQUIRE(job->runs.size() == 6);
  const std::string script = testing::read_file(job->script_path);
  CAPTURE(script);
  CHECK(has_line(script, "#SBATCH --nodes=4"));
  CHECK(has_line(script, "#SBATCH --ntasks-per-node=2"));
  CHECK(has_line(script, "#SBATCH --time=00:19:00"));  // as given
  CHECK(has_line(script, "stop_lead_s=60"));           // the wrapper stops the step a minute early
  CHECK(script.find("#SBATCH --signal") == std::string::npos);
  CHECK(has_line(script, "#SBATCH --partition=debug"));              // shared directives kept
  CHECK(script.find("#SBATCH --signal=TERM") == std::string::npos);  // the runs' own
  CHECK(script.find("--job-name=demo-a1") == std::string::npos);
  CHECK(script.find("scancel --signal=TERM \"$SLURM_JOB_ID\"") != std::string::npos);
}

TEST_CASE("the run order is shuffled with a recorded seed and is the same for the same runs") {
  fs::path dir = testing::scratch_dir("packed_order");
  auto runs = ladder(dir);
  auto first = packed_job(runs, dir / "arrays");
  auto second = packed_job(runs, dir / "arrays");
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->runs == second->runs);
  std::vector<std::string> given, shuffled;
  for (const auto& run : runs) given.push_back(run.spec.run_id);
  for (const PreparedRun* run : first->runs) shuffled.push_back(run->spec.run_id);
  CHECK(shuffled != given);
  const std::string script = testing::read_file(first->script_path);
  CHECK(script.find("shuffled with seed ") != std::string::npos);
  CHECK(script.find("export SCALESTUDY_PACK_SEED=") != std::string::npos);
}

TEST_CASE("the concurrent policy places the largest runs first and up to 4 steps at once") {
  fs::path dir = testing::scratch_dir("packed_concurrent");
  auto runs = ladder(dir);
  auto serial = packed_job(runs, dir / "serial", false);
  auto concurrent = packed_job(runs, dir / "concurrent", true);
  REQUIRE(serial);
  REQUIRE(concurrent);
  std::vector<int> nodes;
  for (const PreparedRun* run : concurrent->runs) nodes.push_back(run->spec.nodes);
  CHECK(nodes == std::vector<int>{4, 4, 2, 2, 1, 1});
  // The same shuffle underneath: runs of one size keep the serial order's relative order.
  std::vector<std::string> serial_small, concurrent_small;
  for (const PreparedRun* run : serial->runs) {
    if (run->spec.nodes == 1) serial_small.push_back(run->spec.run_id);
  }
  for (const PreparedRun* run : concurrent->runs) {
    if (run->spec.nodes == 1) concurrent_small.push_back(run->spec.run_id);
  }
  CHECK(serial_small == concurrent_small);
  const std::string serial_script = testing::read_file(serial->script_path);
  const std::string concurrent_script = testing::read_file(concurrent->script_path);
  CHECK(has_line(serial_script, "max_running=1"));
  CHECK(serial_script.find("--mem=") == std::string::npos);  // the runs state no memory
  CHECK(has_line(concurrent_script, "max_running=4"));
  for (const std::string& path : {serial->script_path, concurrent->script_path}) {
    CAPTURE(path);
    CHECK(std::system(("bash -n '" + path + "'").c_str()) == 0);
  }
}

TEST_CASE("a run that states its memory gets it for its step") {
  fs::path dir = testing::scratch_dir("packed_memory");
  auto runs = ladder(dir);
  runs[2].spec.slurm.memory_mb = 1500;
  auto job = packed_job(runs, dir / "arrays", true);
  REQUIRE(job);
  const std::string script = testing::read_file(job->script_path);
  CHECK(has_line(script, "  '--nodes=2 --ntasks=4 --ntasks-per-node=2 --mem=1500M'"));
  CHECK(has_line(script, "  '--nodes=2 --ntasks=4 --ntasks-per-node=2'"));  // its twin: none
}

TEST_CASE("each packed run is recorded, then marked for the wrapper, then reported") {
  fs::path dir = testing::scratch_dir("packed_marks");
  auto runs = ladder(dir);
  auto job = packed_job(runs, dir / "arrays");
  REQUIRE(job);
  SubmitCallbacks callbacks;
  std::vector<std::string> order;
  callbacks.launching = [&](const Submission& submission) {
    order.push_back("launching " + submission.job_id);
    // A run the study database did not take is not marked: the wrapper skips it.
    return submission.run_id == "b1" ? Status::error("claim lost") : Status::ok();
  };
  callbacks.submitted = [&](const Submission& submission) {
    CHECK(fs::exists(dir / submission.run_id / "packed-77.recorded"));
    order.push_back("submitted " + submission.job_id);
  };
  std::vector<Submission> submissions;
  report_packed_runs(*job, "77", callbacks, submissions);
  CHECK(submissions.size() == 5);
  CHECK_FALSE(fs::exists(dir / "b1" / "packed-77.recorded"));
  CHECK(order.size() == 11);
  CHECK(order.front().rfind("launching 77+", 0) == 0);
}

TEST_CASE("packed job ids name the allocation and the run") {
  const std::string id = packed_run_job_id("123", "0123456789abcdef");
  CHECK(id == "123+0123456789abcdef");
  CHECK(is_packed_job_id(id));
  CHECK_FALSE(is_packed_job_id("123_4"));
  CHECK(packed_allocation_id(id) == "123");
  CHECK(packed_sacct_argv({id, "123+x", "124+y"})[4] == "123,124");
}

TEST_CASE("a packed run's state is its step's; before its step, its turn or its allocation's end") {
  const std::string sacct =
      "10|demo-packed|RUNNING|0:0|node[1-4]|2026-01-01T10:00:00|2026-01-01T10:00:30|Unknown\n"
      "10.batch|batch|RUNNING|0:0|node1|2026-01-01T10:00:30|2026-01-01T10:00:30|Unknown\n"
      "10.0|a1|COMPLETED|0:0|node2|2026-01-01T10:00:31|2026-01-01T10:00:31|2026-01-01T10:01:00\n"
      "10.1|b1|FAILED|75:0|node[3-4]|2026-01-01T10:01:01|2026-01-01T10:01:01|2026-01-01T10:02:00\n"
      "10.2|c1|RUNNING|0:0|node[1-4]|2026-01-01T10:02:01|2026-01-01T10:02:01|Unknown\n"
      "11|demo-packed|TIMEOUT|0:0|node[1-2]|2026-01-01T09:00:00|2026-01-01T09:00:05|"
      "2026-01-01T09:01:05\n"
      "12|demo-packed|PENDING|0:0|None assigned|2026-01-01T11:00:00|Unknown|Unknown\n";
  auto states = packed_run_states(parse_packed_sacct(sacct),
                                  {"10+a1", "10+b1", "10+c1", "10+c2", "11+a2", "12+b2", "13+zz"});
  CHECK(states.count("13+zz") == 0);  // not in sacct yet
  CHECK(states.at("10+a1").state == JobState::kCompleted);
  CHECK(states.at("10+a1").placement.job_step == "10.0");
  CHECK(states.at("10+a1").placement.node_list == "node2");
  CHECK(states.at("10+a1").placement.queued_at == "2026-01-01T10:00:00");
  CHECK(states.at("10+a1").placement.started_at == "2026-01-01T10:00:31");
  CHECK(states.at("10+b1").state == JobState::kPreempted);  // exit 75: checkpointed
  CHECK(states.at("10+c1").state == JobState::kRunning);
  CHECK(states.at("10+c1").placement.ended_at.empty());
  CHECK(states.at("10+c2").state == JobState::kPending);  // its turn has not come
  CHECK(states.at("10+c2").reason.find("waiting for its turn") != std::string::npos);
  CHECK(states.at("11+a2").state == JobState::kTimeout);  // never started: retried, uncharged
  CHECK(states.at("11+a2").never_started);
  CHECK(states.at("11+a2").reason ==
        "in allocation 11, which ended TIMEOUT before this run's step started");
  CHECK_FALSE(states.at("10+b1").never_started);
  CHECK(states.at("12+b2").state == JobState::kPending);
}

TEST_CASE("an allocation that never set up (sacct 0:53) makes its runs' failure class setup") {
  // As sacct lists quickstart-packed's allocation when slurmd could not open its output.
  const std::string sacct =
      "62|quickstart-packed|FAILED|0:53|node1|2026-01-01T10:00:00|2026-01-01T10:00:01|"
      "2026-01-01T10:00:01\n";
  auto states = packed_run_states(parse_packed_sacct(sacct), {"62+a1"});
  const JobStatus& status = states.at("62+a1");
  CHECK(status.reason ==
        "in allocation 62, which ended FAILED before this run's step started "
        "(sacct 0:53: the allocation failed before its first step)");
  const auto failure = common::classify_failure(status, {});
  CHECK(failure.kind == common::FailureClass::kSetup);
  CHECK(failure.evidence.find("sacct 0:53") != std::string::npos);
}

// What sacct showed on the local cluster (26.05) after the node of a packed allocation lost
// its slurmd in the middle of its first step: SLURM cancelled that step.
TEST_CASE("a node failure of the allocation: its running step's run class node, the others free") {
  const std::string sacct =
      "3|demo-packed|NODE_FAIL|1:0|node1|2026-01-01T10:00:00|2026-01-01T10:00:01|"
      "2026-01-01T10:00:45\n"
      "3.batch|batch|CANCELLED||node1|2026-01-01T10:00:01|2026-01-01T10:00:01|"
      "2026-01-01T10:00:45\n"
      "3.0|a1|CANCELLED by 0||node1|2026-01-01T10:00:02|2026-01-01T10:00:02|"
      "2026-01-01T10:00:45\n";
  auto states = packed_run_states(parse_packed_sacct(sacct), {"3+a1", "3+b1"});
  const JobStatus& cut = states.at("3+a1");
  CHECK(cut.state == JobState::kNodeFail);
  CHECK(cut.reason == "its step 3.0 was cancelled as allocation 3 ended NODE_FAIL");
  CHECK(cut.placement.node_list == "node1");  // left out of its retry
  const auto failure = common::classify_failure(cut, {});
  CHECK(failure.kind == common::FailureClass::kNode);
  CHECK(failure.evidence.find("on node1") != std::string::npos);
  // Not started when the node failed: handed back without charge, unless its mark says it
  // had started.
  const JobStatus& waiting = states.at("3+b1");
  CHECK(waiting.state == JobState::kNodeFail);
  CHECK(settle_packed_run_status(waiting, {}).never_started);
  CHECK_FALSE(settle_packed_run_status(waiting, {true, false, std::nullopt}).never_started);
  // A step that ended on its own before the failure keeps its end.
  const std::string earlier = sacct +
                              "3.1|c1|FAILED|1:0|node1|2026-01-01T10:00:02|2026-01-01T10:00:02|"
                              "2026-01-01T10:00:03\n";
  CHECK(packed_run_states(parse_packed_sacct(earlier), {"3+c1"}).at("3+c1").state ==
        JobState::kFailed);
}

TEST_CASE("slurmrestd's accounting answer gives the same packed run states") {
  auto answer = nlohmann::json::parse(R"({"jobs": [{"job_id": 10, "state": {"current": "RUNNING"},
    "time": {"submission": 1767261600},
    "steps": [{"step": {"id": "batch", "name": "batch"}, "state": "RUNNING"},
              {"step": {"id": 0, "name": "a1"}, "state": "FAILED",
               "exit_code": {"return_code": 75}, "nodes": {"range": "node[1-2]"},
               "time": {"start": 1767261630, "end": 1767261690}}]}]})");
  auto states = packed_run_states(parse_rest_db_allocations(answer), {"10+a1", "10+b1"});
  CHECK(states.at("10+a1").state == JobState::kPreempted);
  CHECK(states.at("10+a1").placement.job_step == "10.0");
  CHECK(states.at("10+a1").placement.node_list == "node[1-2]");
  CHECK(states.at("10+a1").placement.queued_at == "2026-01-01T10:00:00Z");
  CHECK(states.at("10+a1").placement.started_at == "2026-01-01T10:00:30Z");
  CHECK(states.at("10+b1").state == JobState::kPending);
}

// What sacct and slurmrestd showed on the local cluster for seconds after `scontrol
// requeue` of an allocation whose third step was running: that step CANCELLED (signal 15)
// beside the REQUEUED allocation, before its next start.
TEST_CASE("a step ended by its allocation's requeue is pending: the run starts again in it") {
  const std::string sacct =
      "20|demo-packed|REQUEUED|0:0|node1|2026-01-01T10:00:00|2026-01-01T10:00:01|"
      "2026-01-01T10:00:12\n"
      "20.0|a1|COMPLETED|0:0|node1|2026-01-01T10:00:01|2026-01-01T10:00:01|2026-01-01T10:00:05\n"
      "20.1|b1|FAILED|1:0|node1|2026-01-01T10:00:05|2026-01-01T10:00:05|2026-01-01T10:00:09\n"
      "20.2|c1|CANCELLED|0:15|node1|2026-01-01T10:00:09|2026-01-01T10:00:09|"
      "2026-01-01T10:00:12\n";
  auto states = packed_run_states(parse_packed_sacct(sacct), {"20+a1", "20+b1", "20+c1"});
  CHECK(states.at("20+a1").state == JobState::kCompleted);
  // Ended by the requeue, or before it: their marks settle them when the allocation ends.
  for (const char* run : {"20+b1", "20+c1"}) {
    CAPTURE(run);
    CHECK(states.at(run).state == JobState::kPending);
    CHECK(states.at(run).reason == "allocation 20 was requeued; the run starts again in it");
    CHECK_FALSE(states.at(run).never_started);
  }
}

TEST_CASE("slurmrestd's list of a requeued allocation's runs: the newest one counts") {
  // Both runs of allocation 21 as slurmrestd lists them after its requeue, oldest first:
  // the first one's steps are history (sacct without --duplicates shows only the second).
  auto answer = nlohmann::json::parse(R"({"jobs": [
    {"job_id": 21, "state": {"current": "REQUEUED"}, "time": {"submission": 1767261600},
     "steps": [{"step": {"id": 0, "name": "a1"}, "state": "COMPLETED",
                "exit_code": {"return_code": 0}},
               {"step": {"id": 1, "name": "b1"}, "state": "CANCELLED"}]},
    {"job_id": 21, "state": {"current": "PENDING"}, "time": {"submission": 1767261612},
     "steps": []}]})");
  auto allocations = parse_rest_db_allocations(answer);
  REQUIRE(allocations.count("21") == 1);
  CHECK(allocations.at("21").state == "PENDING");
  CHECK(allocations.at("21").steps.empty());
  CHECK(packed_run_states(allocations, {"21+b1"}).at("21+b1").state == JobState::kPending);
  // Listed newest first, the newest still counts.
  std::swap(answer["jobs"][0], answer["jobs"][1]);
  CHECK(parse_rest_db_allocations(answer).at("21").state == "PENDING");
  // Requeued within the second it was submitted: the REQUEUED record is the older, in
  // either order; so is one without a submission time.
  answer["jobs"][0]["time"]["submission"] = 1767261600;
  for (int order = 0; order < 2; ++order) {
    CAPTURE(order);
    CHECK(parse_rest_db_allocations(answer).at("21").state == "PENDING");
    std::swap(answer["jobs"][0], answer["jobs"][1]);
  }
  answer["jobs"][0]["state"]["current"] = "RUNNING";  // no steps
  answer["jobs"][1]["state"]["current"] = "RUNNING";  // two steps
  answer["jobs"][0]["time"].erase("submission");
  CHECK(parse_rest_db_allocations(answer).at("21").steps.size() == 2);
}

TEST_CASE("the planned makespan is the wrapper's own schedule: the same order of steps") {
  // A 2-node run, then 1-node runs two at a time: how long they take depends on which
  // pairs up, so a plan simulated in another order than the wrapper's would differ.
  fs::path dir = testing::scratch_dir("packed_plan_order");
  std::vector<PreparedRun> runs = {packed_run(dir, "wide", 2)};
  for (int i = 0; i < 6; ++i) runs.push_back(packed_run(dir, "narrow" + std::to_string(i), 1));
  const int minutes[] = {1, 2, 13, 3, 21, 5, 8};
  for (size_t i = 0; i < runs.size(); ++i) runs[i].spec.slurm.time_limit_minutes = minutes[i];
  std::vector<const RunSpec*> specs;
  for (const PreparedRun& run : runs) specs.push_back(&run.spec);
  auto plans = plan_packed_sweep(specs, {}, true, {});
  REQUIRE(plans);
  REQUIRE(plans->size() == 1);
  std::vector<const PreparedRun*> members;
  for (size_t index : plans->front().runs) members.push_back(&runs[index]);
  auto job =
      write_packed_job(members, (dir / "arrays").string(), true, plans->front().time_minutes);
  REQUIRE(job);
  std::vector<int> nodes, seconds;
  for (const PreparedRun* run : job->runs) {
    nodes.push_back(run->spec.nodes);
    seconds.push_back(run->spec.slurm.time_limit_minutes * 60);
  }
  CHECK(makespan_s(nodes, seconds, true) == plans->front().estimated_s);
  // The fixture tells orders apart: the 1-node runs the other way round take longer or less.
  std::reverse(nodes.begin() + 1, nodes.end());
  std::reverse(seconds.begin() + 1, seconds.end());
  CHECK(makespan_s(nodes, seconds, true) != plans->front().estimated_s);
}

TEST_CASE("a packed run's marks settle its end where accounting lists no step of it") {
  JobStatus timed_out{JobState::kTimeout, std::nullopt, "in allocation 11, which ended TIMEOUT"};
  timed_out.never_started = true;
  JobStatus ended = timed_out;  // a COMPLETED allocation: packed_run_states says CANCELLED
  ended.state = JobState::kCancelled;
  // Killed at the limit or preempted before its step: free, with or without a mark.
  CHECK(settle_packed_run_status(timed_out, {}).never_started);
  // Started (its step slow to show, or hidden by a requeue): charged.
  CHECK_FALSE(settle_packed_run_status(timed_out, {true, false, std::nullopt}).never_started);
  // A wrapper that ended early: free only when it said so.
  CHECK_FALSE(settle_packed_run_status(ended, {}).never_started);
  CHECK(settle_packed_run_status(ended, {false, true, std::nullopt}).never_started);
  // Finished (before a requeue that hid its step): its exit status.
  JobStatus finished = settle_packed_run_status(ended, {true, false, 0});
  CHECK(finished.state == JobState::kCompleted);
  CHECK_FALSE(finished.never_started);
  CHECK(settle_packed_run_status(ended, {true, false, 3}).state == JobState::kFailed);
  // A step accounting lists is left as it says.
  JobStatus running{JobState::kRunning, std::nullopt, ""};
  CHECK(settle_packed_run_status(running, {false, true, 0}).state == JobState::kRunning);
}

TEST_CASE("a pending packed run whose step ended for good before a requeue ends at once") {
  // Completed just before its allocation's requeue, the REQUEUED state missed between
  // polls: its allocation runs again without it (no step listed: pending, its turn not
  // come). Settled by its mark now, it goes RUNNING -> COMPLETED, not through a requeue.
  JobStatus waiting{JobState::kPending, std::nullopt,
                    "waiting for its turn in packed allocation 20"};
  const JobStatus completed = settle_packed_run_status(waiting, {true, false, 0});
  CHECK(completed.state == JobState::kCompleted);
  CHECK(completed.exit_code == 0);
  CHECK(settle_packed_run_status(waiting, {true, false, 1}).state == JobState::kFailed);
  // Stopped by the requeue (a signal, or its checkpoint): it runs again, still pending.
  CHECK(settle_packed_run_status(waiting, {true, false, 143}).state == JobState::kPending);
  CHECK(settle_packed_run_status(waiting, {true, false, 75}).state == JobState::kPending);
  CHECK(settle_packed_run_status(waiting, {}).state == JobState::kPending);
  CHECK(packed_run_runs_again(137));
  CHECK_FALSE(packed_run_runs_again(2));
}

TEST_CASE("marks are read back from the run's folder for its allocation") {
  fs::path dir = testing::scratch_dir("packed_marks");
  fs::create_directories(dir);
  CHECK_FALSE(read_packed_run_marks(dir.string(), "7+a").started);
  std::ofstream(dir / "packed-7.started");
  std::ofstream(dir / "packed-7.finished") << "75\n";
  std::ofstream(dir / "packed-8.not-reached");
  const PackedRunMarks marks = read_packed_run_marks(dir.string(), "7+a");
  CHECK(marks.started);
  CHECK(marks.finished_exit_code == 75);
  CHECK_FALSE(marks.not_reached);
  CHECK(mark_packed_run_dropped(dir.string(), "7+a").is_ok());
  CHECK(fs::exists(dir / "packed-7.dropped"));
  CHECK(mark_packed_run_dropped(dir.string(), "7+a").is_ok());  // idempotent
}

TEST_CASE("a mark that cannot be written is an error naming it, and leaves no mark") {
  // Even root cannot write below a regular file, nor a file where a folder is.
  fs::path dir = testing::scratch_dir("packed_unwritable_marks");
  fs::create_directories(dir);
  std::ofstream(dir / "not-a-folder") << "x\n";
  const Status below_file = mark_packed_run_recorded((dir / "not-a-folder").string(), "7+a");
  REQUIRE_FALSE(below_file.is_ok());
  CHECK(below_file.message().find("cannot write the mark: ") != std::string::npos);
  CHECK(below_file.message().find("not-a-folder/packed-7.recorded: ") != std::string::npos);
  fs::create_directories(dir / "packed-7.dropped");
  const Status on_folder = mark_packed_run_dropped(dir.string(), "7+a");
  REQUIRE_FALSE(on_folder.is_ok());
  CHECK(on_folder.message().find("cannot write the mark: ") != std::string::npos);
  CHECK(on_folder.message().find("packed-7.dropped: ") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "packed-7.dropped.tmp"));
}

TEST_CASE("a run recorded whose mark cannot be written is reported failed, not left waiting") {
  fs::path dir = testing::scratch_dir("packed_unmarked_run");
  auto runs = ladder(dir);
  auto job = packed_job(runs, dir / "arrays");
  REQUIRE(job);
  // b1's folder is a file: no mark can be written in it.
  fs::remove_all(dir / "b1");
  std::ofstream(dir / "b1") << "x\n";
  SubmitCallbacks callbacks;
  std::vector<std::string> submitted;
  std::map<std::string, JobStatus> finished;
  callbacks.launching = [](const Submission&) { return Status::ok(); };
  callbacks.submitted = [&](const Submission& submission) {
    submitted.push_back(submission.run_id);
  };
  callbacks.finished = [&](const Submission& submission, const JobStatus& status) {
    finished.emplace(submission.run_id, status);
  };
  std::vector<Submission> submissions;
  report_packed_runs(*job, "78", callbacks, submissions);
  CHECK(submissions.size() == 6);
  CHECK(submitted.size() == 6);
  REQUIRE(finished.size() == 1);
  const JobStatus& failed = finished.at("b1");
  CHECK(failed.state == JobState::kFailed);
  CHECK_FALSE(failed.exit_code.has_value());
  CHECK(failed.reason.find("not started: ") == 0);
  CHECK(failed.reason.find("cannot write the mark: ") != std::string::npos);
  CHECK(failed.reason.find("b1/packed-78.recorded: ") != std::string::npos);
}

namespace {

// The wrapper's bash function `name`, as its script defines it (on one line, or up to a
// line "}").
std::string wrapper_function(const std::string& script, const std::string& name) {
  const size_t begin = script.find("\n" + name + "() {");
  REQUIRE(begin != std::string::npos);
  const size_t line_end = script.find('\n', begin + 1);
  if (script.compare(line_end - 2, 2, " }") == 0) {
    return script.substr(begin + 1, line_end - begin);
  }
  const size_t end = script.find("\n}\n", begin);
  REQUIRE(end != std::string::npos);
  return script.substr(begin + 1, end + 3 - begin - 1);
}

}  // namespace

TEST_CASE("a requeued wrapper reruns only the runs the requeue stopped and no other job holds") {
  // Allocation 20 starts its third execution (SLURM_RESTART_COUNT=2). Each run's folder
  // holds the marks its earlier executions (".finished": the first, ".r1.finished": the
  // second) and the study database left; allocation 25 is a later one.
  fs::path dir = testing::scratch_dir("packed_requeue_marks");
  auto job = packed_job(ladder(dir), dir / "arrays");
  REQUIRE(job);
  const std::string script = testing::read_file(job->script_path);
  const std::map<std::string, std::map<std::string, std::string>> marks = {
      // Failed on its own; wait recorded it FAILED and resubmitted it into 25 (issue 67).
      {"failed_resubmitted", {{"20.recorded", ""}, {"20.r1.finished", "1"}, {"25.recorded", ""}}},
      // Failed on its own, settled for good (no attempt left): its record says FAILED.
      {"failed_settled", {{"20.recorded", ""}, {"20.r1.finished", "1"}}},
      // Died of its own SIGSEGV (139) before the requeue, settled FAILED: not its to rerun.
      {"segfaulted", {{"20.recorded", ""}, {"20.r1.finished", "139"}}},
      // Killed by the requeue, but the study database has meanwhile submitted it again.
      {"killed_resubmitted", {{"20.recorded", ""}, {"20.r1.finished", "143"}, {"25.recorded", ""}}},
      {"killed", {{"20.recorded", ""}, {"20.r1.finished", "143"}}},
      // Killed in the first execution, not reached in the second.
      {"killed_then_not_reached",
       {{"20.recorded", ""}, {"20.finished", "143"}, {"20.r1.not-reached", ""}}},
      // Stopped by the requeue's SIGTERM after writing a checkpoint: it resumes here.
      {"checkpointed", {{"20.recorded", ""}, {"20.r1.finished", "75"}}},
      // Completed in the first execution, so not run in the second either.
      {"completed", {{"20.recorded", ""}, {"20.finished", "0"}}},
      {"never_started", {{"20.recorded", ""}}},
      {"unrecorded", {}},
      {"cancelled", {{"20.recorded", ""}, {"20.dropped", ""}}},
      // Its folder cannot be written in (here: it is gone), so it was never marked.
      {"unwritable", {}}};
  std::string dirs, names;
  for (const auto& [run, files] : marks) {
    if (run == "unwritable") {
      dirs += " '" + (dir / "requeue" / run).string() + "'";
      names += " " + run;
      continue;
    }
    fs::create_directories(dir / "requeue" / run);
    for (const auto& [mark, text] : files) {
      std::ofstream(dir / "requeue" / run / ("packed-" + mark))
          << text << (text.empty() ? "" : "\n");
    }
    dirs += " '" + (dir / "requeue" / run).string() + "'";
    names += " " + run;
  }
  std::string program = "SLURM_JOB_ID=20\nSLURM_RESTART_COUNT=2\ncheckpointed_status=75\n";
  program += "run_dirs=(" + dirs + ")\nrun_names=(" + names + ")\n";
  for (const char* function :
       {"mark", "execution_of", "step_mark", "known_here", "finished_before", "runs_again"}) {
    program += wrapper_function(script, function);
  }
  program +=
      "for i in \"${!run_dirs[@]}\"; do\n"
      "  runs_again $i >/dev/null; again=$?; known_here $i; echo \"${run_names[i]} $again $?\"\n"
      "done\n"
      "step_mark 0 started\n";
  std::ofstream(dir / "requeue.sh") << program;
  const testing::ShellOutput answered =
      testing::run_shell_merged("bash '" + (dir / "requeue.sh").string() + "'");
  INFO(program << answered.text);
  REQUIRE(answered.exit_code == 0);
  // run, runs again (0 yes), known here (0 this job's, 1 not, 2 unknown); this execution's
  // marks are its own.
  CHECK(answered.text ==
        "cancelled 0 1\n"
        "checkpointed 0 0\n"
        "completed 1 0\n"
        "failed_resubmitted 1 1\n"
        "failed_settled 1 0\n"
        "killed 0 0\n"
        "killed_resubmitted 0 1\n"
        "killed_then_not_reached 0 0\n"
        "never_started 0 0\n"
        "segfaulted 1 0\n"
        "unrecorded 0 2\n"
        "unwritable 0 3\n" +
            (dir / "requeue" / "cancelled" / "packed-20.r2.started").string() + "\n");
}

TEST_CASE("a requeued allocation's marks are read from its newest execution that left one") {
  // Killed by the requeue in the first execution (finished 143), not reached in the second:
  // handed back, not charged as the first execution's failure.
  fs::path dir = testing::scratch_dir("packed_execution_marks");
  fs::create_directories(dir);
  std::ofstream(dir / "packed-7.recorded") << "7+a\n";
  std::ofstream(dir / "packed-7.started");
  std::ofstream(dir / "packed-7.finished") << "143\n";
  std::ofstream(dir / "packed-7.r1.not-reached");
  std::ofstream(dir / "packed-70.r3.started");  // another allocation's
  const PackedRunMarks marks = read_packed_run_marks(dir.string(), "7+a");
  CHECK(marks.execution == 1);
  CHECK_FALSE(marks.started);
  CHECK(marks.not_reached);
  CHECK_FALSE(marks.finished_exit_code.has_value());
  JobStatus ended{JobState::kCancelled, std::nullopt,
                  "in allocation 7, which ended COMPLETED before this run's step started"};
  ended.never_started = true;
  const JobStatus settled = settle_packed_run_status(ended, marks);
  CHECK(settled.never_started);  // no attempt charged
  // The second execution started it and it ended: that end counts.
  std::ofstream(dir / "packed-7.r1.started");
  std::ofstream(dir / "packed-7.r1.finished") << "0\n";
  CHECK(settle_packed_run_status(ended, read_packed_run_marks(dir.string(), "7+a")).state ==
        JobState::kCompleted);
}

TEST_CASE("a step the requeue ended, listed beside its allocation pending again, is pending") {
  const std::string sacct =
      "20|demo-packed|PENDING|0:0|None assigned|2026-01-01T10:00:00|Unknown|Unknown\n"
      "20.0|a1|COMPLETED|0:0|node1|2026-01-01T10:00:01|2026-01-01T10:00:01|2026-01-01T10:00:05\n"
      "20.1|b1|CANCELLED|0:15|node1|2026-01-01T10:00:05|2026-01-01T10:00:05|"
      "2026-01-01T10:00:12\n";
  auto states = packed_run_states(parse_packed_sacct(sacct), {"20+a1", "20+b1"});
  CHECK(states.at("20+a1").state == JobState::kCompleted);
  CHECK(states.at("20+b1").state == JobState::kPending);
  CHECK(states.at("20+b1").reason == "allocation 20 was requeued; the run starts again in it");
}

TEST_CASE("the wrapper marks steps as they happen and bounds its wait for records") {
  fs::path dir = testing::scratch_dir("packed_wrapper_marks");
  auto runs = ladder(dir);
  auto job = packed_job(runs, dir / "arrays");
  REQUIRE(job);
  const std::string script = testing::read_file(job->script_path);
  CHECK(has_line(script, "limit_s=1140"));  // the fallback for the job's end: 19 minutes
  CHECK(has_line(script, "checkpointed_status=75"));
  CHECK(script.find(": >\"$(step_mark \"$i\" started)\"") != std::string::npos);
  CHECK(script.find("mv \"$finished.tmp\" \"$finished\"") != std::string::npos);
  CHECK(script.find("record_wait_s=${SCALESTUDY_PACKED_RECORD_WAIT_S:-300}") != std::string::npos);
  // The not-reached marks come before the wait for the running steps.
  CHECK(script.find("not-reached)\"; done") < script.find("while ((running > 0)); do reap; done"));
  // On a requeue only the runs the requeue killed run again (runs_again, tested below).
  CHECK(script.find("runs_again \"$i\" && waiting+=(\"$i\")") != std::string::npos);
  // The alarm rings only when its sleep ran out, not when a requeue killed the sleep.
  CHECK(script.find("(sleep $((left_s > 0 ? left_s : 0)) && kill -USR1 $$) &") !=
        std::string::npos);
  // squeue's answer is checked itself, not date's.
  CHECK(script.find("date -d \"$(squeue") == std::string::npos);
  // A run cancelled while it runs: the wrapper stops its step, watching from its start.
  CHECK(script.find("stop_when_dropped \"$i\" \"$script\" &") != std::string::npos);
}

TEST_CASE("a packed allocation leaves out every node its runs' retries exclude") {
  fs::path dir = testing::scratch_dir("packed_exclude");
  auto runs = ladder(dir);
  runs[0].spec.slurm.exclude_nodes = {"node[1-2]"};
  runs[3].spec.slurm.exclude_nodes = {"node7", "node[1-2]"};
  // The largest run's own script carries its --exclude; the allocation's is the union.
  std::ofstream(runs[5].script_path, std::ios::app) << "#SBATCH --exclude=node9\n";
  auto job = packed_job(runs, dir / "arrays");
  REQUIRE(job);
  const std::string script = testing::read_file(job->script_path);
  CAPTURE(script);
  CHECK(has_line(script, "#SBATCH --exclude=node[1-2],node7"));
  CHECK(script.find("--exclude=node9") == std::string::npos);
}
