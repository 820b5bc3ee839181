#include "orchestrator/sched/packed_run_marks.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "harness/core/exit_codes.hpp"
#include "orchestrator/common/safe_files.hpp"
#include "orchestrator/sched/packed_allocation.hpp"

namespace scalestudy::sched {
namespace {

std::string mark_path(const std::string& out_dir, const std::string& job_id,
                      const std::string& mark) {
  return out_dir + "/packed-" + packed_allocation_id(job_id) + "." + mark;
}

// A mark of one execution of the allocation (started, finished, not-reached): SLURM's
// restart count `execution` names it from the first requeue on, "packed-<A>.r1.<mark>".
std::string step_mark_path(const std::string& out_dir, const std::string& job_id, int execution,
                           const std::string& mark) {
  const std::string suffix = execution > 0 ? ".r" + std::to_string(execution) : "";
  return out_dir + "/packed-" + packed_allocation_id(job_id) + suffix + "." + mark;
}

// The newest execution of `job_id`'s allocation that left a step mark in `out_dir`.
int newest_execution(const std::string& out_dir, const std::string& job_id) {
  const std::string prefix = "packed-" + packed_allocation_id(job_id) + ".r";
  int newest = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const size_t dot = name.find('.', prefix.size());
    const std::string digits = name.substr(prefix.size(), dot - prefix.size());
    const std::string mark = dot == std::string::npos ? "" : name.substr(dot + 1);
    if (digits.empty() || digits.size() > 6 ||
        digits.find_first_not_of("0123456789") != std::string::npos ||
        (mark != "started" && mark != "finished" && mark != "not-reached")) {
      continue;
    }
    newest = std::max(newest, std::stoi(digits));
  }
  return newest;
}

bool exists(const std::string& path) {
  std::error_code error;
  return std::filesystem::exists(path, error);
}

// Never through a symlink the job's user left at the mark's name (O_EXCL); a write that
// fails leaves no mark (the wrapper reads a mark's existence).
Status write_once(const std::string& path, const std::string& text) {
  Status written = common::write_file_once(path, text + "\n", 0644);
  if (!written) return written.with_context("cannot write the mark");
  return Status::ok();
}

}  // namespace

PackedRunMarks read_packed_run_marks(const std::string& out_dir, const std::string& job_id) {
  PackedRunMarks marks;
  marks.execution = newest_execution(out_dir, job_id);
  marks.started = exists(step_mark_path(out_dir, job_id, marks.execution, "started"));
  marks.not_reached = exists(step_mark_path(out_dir, job_id, marks.execution, "not-reached"));
  int exit_code = 0;
  if (std::ifstream(step_mark_path(out_dir, job_id, marks.execution, "finished")) >> exit_code) {
    marks.finished_exit_code = exit_code;
  }
  return marks;
}

Status mark_packed_run_recorded(const std::string& out_dir, const std::string& job_id) {
  return write_once(mark_path(out_dir, job_id, "recorded"), job_id);
}

Status mark_packed_run_dropped(const std::string& out_dir, const std::string& job_id) {
  return write_once(mark_path(out_dir, job_id, "dropped"), job_id);
}

JobStatus packed_run_unmarked(const Status& error) {
  return {JobState::kFailed, std::nullopt, "not started: " + error.message()};
}

bool packed_run_runs_again(int finished_exit_code) {
  return finished_exit_code >= 128 || finished_exit_code == exit_codes::kCheckpointed;
}

JobStatus settle_packed_run_status(JobStatus status, const PackedRunMarks& marks) {
  // Pending (its turn not come, or its allocation requeued) after a step that ended for
  // good: that end, at once. Else a run that completed just before a requeue, the REQUEUED
  // state missed between polls, would be seen running, then pending again: requeued.
  const bool ended_for_good =
      marks.finished_exit_code && !packed_run_runs_again(*marks.finished_exit_code);
  if (!status.never_started && !(status.state == JobState::kPending && ended_for_good)) {
    return status;
  }
  if (marks.finished_exit_code) {
    const int exit_code = *marks.finished_exit_code;
    JobStatus finished{exit_code == 0 ? JobState::kCompleted : JobState::kFailed, exit_code,
                       "its step ended with exit status " + std::to_string(exit_code) +
                           " (its mark; accounting lists no step of it)"};
    finished.placement = status.placement;
    return finished;
  }
  // Ends that may leave the wrapper no last second to say so; a node failure was another
  // run's (the one on the node), not this one's.
  const bool abrupt_end = status.state == JobState::kTimeout ||
                          status.state == JobState::kPreempted ||
                          status.state == JobState::kNodeFail;
  status.never_started = !marks.started && (marks.not_reached || abrupt_end);
  return status;
}

}  // namespace scalestudy::sched
