#include "orchestrator/campaign/study_state_failures.hpp"

#include <algorithm>

namespace scalestudy::campaign {
namespace {

using sqlite::Value;

constexpr const char* kCurrentAttempt = "(SELECT attempts FROM runs WHERE run_id = ?)";

void add_once(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end()) {
    list.push_back(item);
  }
}

}  // namespace

Status record_attempt_failure(sqlite::Database& db, const std::string& run_id,
                              const common::Failure* failure) {
  Value kind = failure ? Value(std::string(common::to_string(failure->kind))) : Value();
  Value evidence = failure ? Value(failure->evidence) : Value();
  auto run = db.query("UPDATE runs SET failure_class = ?, failure_evidence = ? WHERE run_id = ?",
                      {kind, evidence, run_id});
  if (!run) return run.status();
  auto attempt = db.query(std::string("UPDATE attempts SET failure_class = ?, failure_evidence = ? "
                                      "WHERE run_id = ? AND attempt = ") +
                              kCurrentAttempt,
                          {kind, evidence, run_id, run_id});
  return attempt.status();
}

Result<std::map<std::string, FailureCounts>> failure_counts(sqlite::Database& db) {
  auto rows = db.query(
      "SELECT run_id, failure_class, COUNT(*) FROM attempts WHERE failure_class IS NOT NULL "
      "GROUP BY run_id, failure_class");
  if (!rows) return rows.status();
  std::map<std::string, FailureCounts> counts;
  for (const auto& row : *rows) {
    if (auto kind = common::parse_failure_class(sqlite::to_string(row[1]))) {
      counts[sqlite::to_string(row[0])][*kind] = static_cast<int>(sqlite::integer_of(row[2]));
    }
  }
  return counts;
}

Result<std::vector<std::string>> nodes_to_exclude(sqlite::Database& db, const std::string& run_id,
                                                  bool flagged_too) {
  auto rows = db.query(
      "SELECT p.node_list FROM attempts a JOIN placements p "
      "ON p.run_id = a.run_id AND p.attempt = a.attempt "
      "WHERE a.run_id = ? AND a.failure_class IN ('node', 'hang') ORDER BY a.attempt",
      {run_id});
  if (!rows) return rows.status();
  std::vector<std::string> excluded;
  for (const auto& row : *rows) add_once(excluded, sqlite::to_string(row[0]));
  if (flagged_too) {
    auto failed = common::read_study_failures(db);
    if (!failed) return failed.status();
    for (const common::NodeFailures& node : failed->nodes) {
      if (node.flagged) add_once(excluded, node.node);
    }
  }
  return excluded;
}

}  // namespace scalestudy::campaign
