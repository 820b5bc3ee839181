#include "orchestrator/sched/packed_run_marks.hpp"

#include <filesystem>
#include <fstream>

#include "orchestrator/common/safe_files.hpp"
#include "orchestrator/sched/packed_allocation.hpp"

namespace scalestudy::sched {
namespace {

std::string mark_path(const std::string& out_dir, const std::string& job_id,
                      const std::string& mark) {
  return out_dir + "/packed-" + packed_allocation_id(job_id) + "." + mark;
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
  marks.started = exists(mark_path(out_dir, job_id, "started"));
  marks.not_reached = exists(mark_path(out_dir, job_id, "not-reached"));
  int exit_code = 0;
  if (std::ifstream(mark_path(out_dir, job_id, "finished")) >> exit_code) {
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

JobStatus settle_packed_run_status(JobStatus status, const PackedRunMarks& marks) {
  if (!status.never_started) return status;
  if (marks.finished_exit_code) {
    const int exit_code = *marks.finished_exit_code;
    JobStatus finished{exit_code == 0 ? JobState::kCompleted : JobState::kFailed, exit_code,
                       "its step ended with exit status " + std::to_string(exit_code) +
                           " (its mark; accounting lists no step of it)"};
    finished.placement = status.placement;
    return finished;
  }
  const bool out_of_time =
      status.state == JobState::kTimeout || status.state == JobState::kPreempted;
  status.never_started = !marks.started && (marks.not_reached || out_of_time);
  return status;
}

}  // namespace scalestudy::sched
