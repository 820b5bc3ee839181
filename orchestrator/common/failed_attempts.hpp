// The failed attempts of a study database's planned runs with their class, evidence and
// nodes, and the nodes they failed on, counted by class, in this study and in the other
// studies of its results folder (docs/failures.md): what `status` (campaign/) and `report`
// (results/) both show, read one way. A database from before failure classes has none.
// Reads only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/common/failure_class.hpp"

namespace scalestudy::common {

// A node with this many node or hang failures across the study is flagged.
inline constexpr int kFlaggedNodeFailures = 2;

struct FailedAttempt {
  std::string run_id;
  int attempt = 0;
  std::string state;  // as the scheduler ended it (FAILED, NODE_FAIL, REQUEUED, ...)
  FailureClass kind = FailureClass::kUnknown;
  std::string evidence;
  std::string node_list;  // a SLURM host list; empty when unknown (the local executor)
};

struct NodeFailures {
  std::string node;
  std::map<FailureClass, int> failures;  // in this study
  // In the other studies (and campaigns) of the same results folder: a node that keeps
  // failing one study's runs is as suspect for the next study.
  std::map<FailureClass, int> elsewhere;
  bool flagged = false;  // kFlaggedNodeFailures or more node and hang failures, in all
};

// By run, then attempt.
Result<std::vector<FailedAttempt>> read_failed_attempts(sqlite::Database& db);

// The failed attempts of every other study database in `db`'s folder (the *.sqlite files
// beside it with an attempts table); files that are not study databases are passed over.
Result<std::vector<FailedAttempt>> read_failed_attempts_beside(const sqlite::Database& db);

// Every node of the attempts' host lists, by name, with its failures by class here and in
// `elsewhere` (read_failed_attempts_beside); a node only failed elsewhere is listed too.
std::vector<NodeFailures> count_node_failures(const std::vector<FailedAttempt>& attempts,
                                              const std::vector<FailedAttempt>& elsewhere = {});

// count_node_failures of `db`'s failed attempts and those beside it.
struct StudyFailures {
  std::vector<FailedAttempt> attempts;
  std::vector<NodeFailures> nodes;
};
Result<StudyFailures> read_study_failures(sqlite::Database& db);

// "node 2, hang 1": failures by class, in the classes' order.
std::string failure_counts_text(const std::map<FailureClass, int>& failures);

}  // namespace scalestudy::common
