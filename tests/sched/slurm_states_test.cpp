#include "orchestrator/sched/slurm_states.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::sched;

TEST_CASE("SLURM state names map onto JobState, including sacct's decorated ones") {
  CHECK(map_slurm_state("COMPLETED") == JobState::kCompleted);
  CHECK(map_slurm_state("CANCELLED by 0") == JobState::kCancelled);
  CHECK(map_slurm_state("OUT_OF_MEMORY") == JobState::kOutOfMemory);
  CHECK(map_slurm_state("NODE_FAIL") == JobState::kNodeFail);
  CHECK(map_slurm_state("BOOT_FAIL") == JobState::kNodeFail);
  CHECK(map_slurm_state("COMPLETING") == JobState::kRunning);
  CHECK(map_slurm_state("REQUEUED") == JobState::kPending);
  CHECK(map_slurm_state("DEADLINE") == JobState::kTimeout);
  CHECK(map_slurm_state("timeout") == JobState::kTimeout);
  CHECK_FALSE(map_slurm_state("").has_value());
  CHECK_FALSE(map_slurm_state("BOGUS").has_value());
}

TEST_CASE("exit codes read as EXIT:SIGNAL") {
  CHECK(parse_slurm_exit_code("0:0") == 0);
  CHECK(parse_slurm_exit_code("3:0") == 3);
  CHECK(parse_slurm_exit_code("0:9") == 137);
  CHECK_FALSE(parse_slurm_exit_code("").has_value());
}

TEST_CASE("sacct parsable2 output gives states, exit codes, reasons and expanded arrays") {
  const std::string output =
      "41|COMPLETED|0:0|None\n"
      "42|FAILED|3:0|None\n"
      "43|CANCELLED by 0|0:15|None\n"
      "44_1|TIMEOUT|0:0|None\n"
      "45_[2-4,7%2]|PENDING|0:0|JobArrayTaskLimit\n";
  auto states = parse_sacct(output);
  REQUIRE(states.size() == 8);
  CHECK(states["41"].state == JobState::kCompleted);
  CHECK(states["41"].reason.empty());
  CHECK(states["42"].state == JobState::kFailed);
  CHECK(states["42"].exit_code == 3);
  CHECK(states["42"].reason == "exit code 3");
  CHECK(states["43"].state == JobState::kCancelled);
  CHECK(states["43"].reason == "CANCELLED by 0");
  CHECK(states["44_1"].state == JobState::kTimeout);
  CHECK(states["44_1"].reason == "TimeLimit");
  for (const char* task : {"45_2", "45_3", "45_4", "45_7"}) {
    CHECK(states[task].state == JobState::kPending);
    CHECK(states[task].reason == "JobArrayTaskLimit");
  }
}

TEST_CASE("a completed job keeps no reason, not even the BeginTime of its requeue") {
  auto states = parse_sacct("51|COMPLETED|0:0|BeginTime\n");
  CHECK(states["51"].state == JobState::kCompleted);
  CHECK(states["51"].reason.empty());
}

TEST_CASE("sacct's node list and times are the job's placement") {
  auto states = parse_sacct(
      "51|COMPLETED|0:0|None|node[1-2]|2026-01-01T10:00:00|2026-01-01T10:00:30|"
      "2026-01-01T10:01:00\n52|PENDING|0:0|Priority|None assigned|2026-01-01T10:00:00|Unknown|"
      "Unknown\n");
  CHECK(states["51"].placement.node_list == "node[1-2]");
  CHECK(states["51"].placement.queued_at == "2026-01-01T10:00:00");
  CHECK(states["51"].placement.started_at == "2026-01-01T10:00:30");
  CHECK(states["51"].placement.ended_at == "2026-01-01T10:01:00");
  CHECK(states["51"].placement.job_step.empty());
  CHECK(states["52"].placement.node_list.empty());
  CHECK(states["52"].placement.started_at.empty());
}

TEST_CASE("a job that exited 75 checkpointed: PREEMPTED, to resume, not FAILED") {
  auto states = parse_sacct("51|FAILED|75:0|None\n52|TIMEOUT|0:15|None\n53|FAILED|74:0|None\n");
  CHECK(states["51"].state == JobState::kPreempted);
  CHECK(states["51"].exit_code == 75);
  CHECK(states["51"].reason.find("checkpointed (exit 75)") != std::string::npos);
  CHECK(states["52"].state == JobState::kTimeout);
  CHECK(states["53"].state == JobState::kFailed);
  CHECK(is_retryable(states["51"].state));
}

TEST_CASE("squeue output gives live states with their reasons") {
  auto states = parse_squeue("7_0|RUNNING|None\n7_1|PENDING|Resources\n8|COMPLETING|None\n");
  CHECK(states["7_0"].state == JobState::kRunning);
  CHECK(states["7_1"].state == JobState::kPending);
  CHECK(states["7_1"].reason == "Resources");
  CHECK(states["8"].state == JobState::kRunning);
}

TEST_CASE("array job ids expand and reduce to their base") {
  CHECK(expand_array_job_id("12_[0-2]") == std::vector<std::string>{"12_0", "12_1", "12_2"});
  CHECK(expand_array_job_id("12_5") == std::vector<std::string>{"12_5"});
  CHECK(expand_array_job_id("12") == std::vector<std::string>{"12"});
  CHECK(base_job_id("12_5") == "12");
  CHECK(base_job_id("12") == "12");
}

TEST_CASE("retry policy: everything finished but COMPLETED is retryable") {
  CHECK_FALSE(is_retryable(JobState::kCompleted));
  CHECK_FALSE(is_retryable(JobState::kRunning));
  CHECK_FALSE(is_retryable(JobState::kPending));
  for (JobState state : {JobState::kFailed, JobState::kTimeout, JobState::kPreempted,
                         JobState::kNodeFail, JobState::kCancelled, JobState::kOutOfMemory}) {
    CHECK(is_retryable(state));
    CHECK(parse_job_state(to_string(state)) == state);
  }
}
