#include "orchestrator/common/job_state.hpp"

#include <array>
#include <string>
#include <utility>

#include "harness/core/exit_codes.hpp"

namespace scalestudy::common {
namespace {

constexpr std::array<std::pair<JobState, const char*>, 9> kNames = {{
    {JobState::kPending, "PENDING"},
    {JobState::kRunning, "RUNNING"},
    {JobState::kCompleted, "COMPLETED"},
    {JobState::kFailed, "FAILED"},
    {JobState::kTimeout, "TIMEOUT"},
    {JobState::kPreempted, "PREEMPTED"},
    {JobState::kNodeFail, "NODE_FAIL"},
    {JobState::kCancelled, "CANCELLED"},
    {JobState::kOutOfMemory, "OUT_OF_MEMORY"},
}};

}  // namespace

const char* to_string(JobState state) {
  for (const auto& [value, name] : kNames) {
    if (value == state) return name;
  }
  return "UNKNOWN";
}

std::optional<JobState> parse_job_state(std::string_view name) {
  for (const auto& [value, known] : kNames) {
    if (name == known) return value;
  }
  return std::nullopt;
}

bool is_terminal(JobState state) {
  return state != JobState::kPending && state != JobState::kRunning;
}

bool is_retryable(JobState state) {
  return is_terminal(state) && state != JobState::kCompleted;
}

JobStatus classify_checkpointed(JobStatus status) {
  if (status.exit_code != exit_codes::kCheckpointed || !is_terminal(status.state) ||
      status.state == JobState::kCompleted) {
    return status;
  }
  const bool preempted = status.state == JobState::kPreempted;
  status.state = JobState::kPreempted;
  status.reason = std::string(preempted ? "preempted; " : "") + kCheckpointedReason;
  return status;
}

bool resumes_from_checkpoint(const std::string& reason) {
  return reason.find(kCheckpointedReason) != std::string::npos;
}

}  // namespace scalestudy::common
