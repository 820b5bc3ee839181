#include "orchestrator/campaign/retry_verdict.hpp"

#include <nlohmann/json.hpp>
#include <optional>

namespace scalestudy::campaign {
namespace {

using common::FailureClass;

int count_of(const FailureCounts& failures, FailureClass kind) {
  auto found = failures.find(kind);
  return found == failures.end() ? 0 : found->second;
}

int node_failures(const FailureCounts& failures) {
  return count_of(failures, FailureClass::kNode) + count_of(failures, FailureClass::kPreempted);
}

// The retries the policy gives a class; nullopt: only max_attempts bounds it.
std::optional<int> retries_of(const RetryPolicy& policy, FailureClass kind) {
  switch (kind) {
    case FailureClass::kProgram:
      return policy.program_retries;
    case FailureClass::kSetup:
      return policy.setup_retries;
    case FailureClass::kTime:
      return policy.time_retries;
    case FailureClass::kHang:
      return policy.hang_retries;
    default:
      return std::nullopt;
  }
}

}  // namespace

int charged_attempts(int attempts, const FailureCounts& failures) {
  return attempts - node_failures(failures);
}

RetryVerdict retry_verdict(int max_attempts, const RetryPolicy& policy, int attempts,
                           const FailureCounts& failures, FailureClass last, bool checkpointed) {
  const std::string name = common::to_string(last);
  if (last == FailureClass::kNode || last == FailureClass::kPreempted) {
    const int count = node_failures(failures);
    if (count > policy.max_node_failures) {
      return {false, std::to_string(count) + " node or preemption failures, more than " +
                         "policy.max_node_failures (" + std::to_string(policy.max_node_failures) +
                         ")"};
    }
    return {true, "node and preemption failures are retried up to policy.max_node_failures"};
  }
  const int charged = charged_attempts(attempts, failures);
  if (charged >= max_attempts) {
    return {false, std::to_string(charged) + " of max_attempts (" + std::to_string(max_attempts) +
                       ") used"};
  }
  // A time limit met with a checkpoint written: each attempt moved the run on, so it goes
  // on from there within max_attempts (policy.retry.time bounds the runs that start over).
  if (last == FailureClass::kTime && checkpointed) {
    return {true, "time failures with a checkpoint resume from it within max_attempts"};
  }
  if (auto retries = retries_of(policy, last)) {
    const int count = std::max(count_of(failures, last), 1);
    if (count > *retries) {
      return {false, *retries == 0
                         ? name + " failures are not retried (policy.retry." + name + ": 0)"
                         : std::to_string(count) + " " + name +
                               " failures, more than policy.retry." + name + " (" +
                               std::to_string(*retries) + ")"};
    }
  }
  return {true, name + " failures are retried within max_attempts"};
}

std::string retry_policy_json(const RetryPolicy& policy) {
  return nlohmann::json{
      {"max_node_failures", policy.max_node_failures},
      {"retry",
       {{"program", policy.program_retries},
        {"setup", policy.setup_retries},
        {"time", policy.time_retries},
        {"hang", policy.hang_retries}}},
      {"exclude_flagged_nodes", policy.exclude_flagged_nodes},
      {"hang_after", policy.hang_after_s ? nlohmann::json(*policy.hang_after_s) : nlohmann::json()}}
      .dump();
}

RetryPolicy retry_policy_from_json(const std::string& text) {
  RetryPolicy policy;
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) return policy;
  policy.max_node_failures = json.value("max_node_failures", policy.max_node_failures);
  policy.exclude_flagged_nodes = json.value("exclude_flagged_nodes", policy.exclude_flagged_nodes);
  if (const auto hang = json.value("hang_after", nlohmann::json()); hang.is_number_integer()) {
    policy.hang_after_s = hang.get<int>();
  }
  const auto retry = json.value("retry", nlohmann::json::object());
  if (retry.is_object()) {
    policy.program_retries = retry.value("program", policy.program_retries);
    policy.setup_retries = retry.value("setup", policy.setup_retries);
    policy.time_retries = retry.value("time", policy.time_retries);
    policy.hang_retries = retry.value("hang", policy.hang_retries);
  }
  return policy;
}

}  // namespace scalestudy::campaign
