#include "orchestrator/common/failed_attempts.hpp"

#include <filesystem>

#include "orchestrator/common/host_list.hpp"

namespace scalestudy::common {

Result<std::vector<FailedAttempt>> read_failed_attempts(sqlite::Database& db) {
  auto has_classes = db.query_value(
      "SELECT COUNT(*) FROM pragma_table_info('attempts') WHERE name = 'failure_class'");
  if (!has_classes) return has_classes.status();
  if (!*has_classes || sqlite::integer_of(**has_classes) == 0) return std::vector<FailedAttempt>{};
  auto rows = db.query(
      "SELECT a.run_id, a.attempt, a.state, a.failure_class, a.failure_evidence, p.node_list "
      "FROM attempts a LEFT JOIN placements p ON p.run_id = a.run_id AND p.attempt = a.attempt "
      "WHERE a.failure_class IS NOT NULL AND a.run_id IN (SELECT run_id FROM runs WHERE "
      "planned = 1) ORDER BY a.run_id, a.attempt");
  if (!rows) return rows.status();
  std::vector<FailedAttempt> attempts;
  for (const auto& row : *rows) {
    auto kind = parse_failure_class(sqlite::to_string(row[3]));
    attempts.push_back({sqlite::to_string(row[0]), static_cast<int>(sqlite::integer_of(row[1])),
                        sqlite::to_string(row[2]), kind.value_or(FailureClass::kUnknown),
                        sqlite::to_string(row[4]), sqlite::to_string(row[5])});
  }
  return attempts;
}

Result<std::vector<FailedAttempt>> read_failed_attempts_beside(const sqlite::Database& db) {
  namespace fs = std::filesystem;
  std::vector<FailedAttempt> attempts;
  std::error_code error;
  const fs::path own = fs::absolute(db.path(), error);
  for (const auto& entry : fs::directory_iterator(own.parent_path(), error)) {
    if (entry.path().extension() != ".sqlite" || entry.path() == own) continue;
    auto other = sqlite::Database::open(entry.path().string(), sqlite::OpenMode::kReadOnly);
    if (!other) continue;
    auto is_study = other->query_value(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('runs', "
        "'attempts', 'placements')");
    if (!is_study || !*is_study || sqlite::integer_of(**is_study) != 3) continue;
    auto failed = read_failed_attempts(*other);
    if (!failed) return Status::error(entry.path().string() + ": " + failed.status().message());
    attempts.insert(attempts.end(), failed->begin(), failed->end());
  }
  return attempts;
}

std::vector<NodeFailures> count_node_failures(const std::vector<FailedAttempt>& attempts,
                                              const std::vector<FailedAttempt>& elsewhere) {
  std::map<std::string, NodeFailures> by_node;
  auto count = [&](const std::vector<FailedAttempt>& list, bool here) {
    for (const FailedAttempt& attempt : list) {
      for (const std::string& node : expand_host_list(attempt.node_list)) {
        NodeFailures& counted = by_node[node];
        counted.node = node;
        ++(here ? counted.failures : counted.elsewhere)[attempt.kind];
      }
    }
  };
  count(attempts, true);
  count(elsewhere, false);
  std::vector<NodeFailures> nodes;
  for (auto& [node, counted] : by_node) {
    int blamed = 0;
    for (const auto* failures : {&counted.failures, &counted.elsewhere}) {
      for (const auto& [kind, number] : *failures) {
        if (blames_nodes(kind)) blamed += number;
      }
    }
    counted.flagged = blamed >= kFlaggedNodeFailures;
    nodes.push_back(std::move(counted));
  }
  return nodes;
}

Result<StudyFailures> read_study_failures(sqlite::Database& db) {
  auto attempts = read_failed_attempts(db);
  if (!attempts) return attempts.status();
  auto elsewhere = read_failed_attempts_beside(db);
  if (!elsewhere) return elsewhere.status();
  StudyFailures failures;
  failures.nodes = count_node_failures(*attempts, *elsewhere);
  failures.attempts = std::move(*attempts);
  return failures;
}

std::string failure_counts_text(const std::map<FailureClass, int>& failures) {
  std::string text;
  for (FailureClass kind : all_failure_classes()) {
    auto found = failures.find(kind);
    if (found == failures.end()) continue;
    text += (text.empty() ? "" : ", ") + std::string(to_string(kind)) + " " +
            std::to_string(found->second);
  }
  return text;
}

}  // namespace scalestudy::common
