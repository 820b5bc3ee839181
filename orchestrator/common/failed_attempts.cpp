#include "orchestrator/common/failed_attempts.hpp"

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

std::vector<NodeFailures> count_node_failures(const std::vector<FailedAttempt>& attempts) {
  std::map<std::string, std::map<FailureClass, int>> by_node;
  for (const FailedAttempt& attempt : attempts) {
    for (const std::string& node : expand_host_list(attempt.node_list)) {
      ++by_node[node][attempt.kind];
    }
  }
  std::vector<NodeFailures> nodes;
  for (auto& [node, failures] : by_node) {
    int blamed = 0;
    for (const auto& [kind, count] : failures) {
      if (blames_nodes(kind)) blamed += count;
    }
    nodes.push_back({node, std::move(failures), blamed >= kFlaggedNodeFailures});
  }
  return nodes;
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
