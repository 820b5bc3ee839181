// Whether a run whose attempt failed is submitted again, by the class of its failures and
// the study's policy (study/retry_policy.hpp, docs/failures.md): node and preempted
// failures against their own bound (max_node_failures), every other attempt against
// max_attempts, and each class against its own retries. The policy as the study database
// stores it (study.policy_json). Pure functions.
#pragma once

#include <map>
#include <string>

#include "orchestrator/common/failure_class.hpp"
#include "orchestrator/study/retry_policy.hpp"

namespace scalestudy::campaign {

// How many of a run's attempts failed in each class.
using FailureCounts = std::map<common::FailureClass, int>;

struct RetryVerdict {
  bool retry = false;
  std::string why;  // "program failures are not retried (policy.retry.program: 0)"
};

// The attempts that count against max_attempts: all but those the nodes failed.
int charged_attempts(int attempts, const FailureCounts& failures);

// After a run's `attempts` attempts, the last of which failed in class `last`;
// `checkpointed`: it stopped after writing a checkpoint, which the next attempt resumes.
RetryVerdict retry_verdict(int max_attempts, const RetryPolicy& policy, int attempts,
                           const FailureCounts& failures, common::FailureClass last,
                           bool checkpointed = false);

std::string retry_policy_json(const RetryPolicy& policy);
// The defaults for what the text does not hold ("{}": a database from before policies).
RetryPolicy retry_policy_from_json(const std::string& text);

}  // namespace scalestudy::campaign
