#include "orchestrator/results/query/prepared_queries.hpp"

namespace scalestudy::results {

Result<sqlite::Statement*> PreparedQueries::statement(const std::string& sql,
                                                      const std::vector<sqlite::Value>& params) {
  auto found = statements_.find(sql);
  if (found == statements_.end()) {
    auto prepared = db_.prepare(sql);
    if (!prepared) return prepared.status();
    found = statements_.emplace(sql, std::move(*prepared)).first;
  }
  sqlite::Statement& prepared = found->second;
  // A query that failed part-way left its statement mid-step; start it afresh.
  if (Status status = prepared.reset(); !status) return status;
  for (size_t i = 0; i < params.size(); ++i) prepared.bind(static_cast<int>(i + 1), params[i]);
  return &prepared;
}

Status PreparedQueries::run(const std::string& sql, const std::vector<sqlite::Value>& params) {
  auto prepared = statement(sql, params);
  if (!prepared) return prepared.status();
  return (*prepared)->run();
}

Result<std::optional<sqlite::Value>> PreparedQueries::value(
    const std::string& sql, const std::vector<sqlite::Value>& params) {
  std::optional<sqlite::Value> first;
  Status status = for_each_row(sql, params, [&](const sqlite::Statement& row) {
    if (!first) first = row.column_value(0);
  });
  if (!status) return status;
  return first;
}

}  // namespace scalestudy::results
