#include "orchestrator/campaign/study_state_migration.hpp"

#include <set>

namespace scalestudy::campaign {
namespace {

// A column as pragma_table_info gives it: name, type, notnull, dflt_value.
constexpr const char* kColumnsSql =
    "SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info(?)";

std::string column_definition(const std::vector<sqlite::Value>& column) {
  std::string definition =
      "\"" + sqlite::to_string(column[0]) + "\" " + sqlite::to_string(column[1]);
  if (sqlite::integer_of(column[2]) != 0) definition += " NOT NULL";
  if (!std::holds_alternative<std::monostate>(column[3])) {
    definition += " DEFAULT " + sqlite::to_string(column[3]);
  }
  return definition;
}

}  // namespace

Status add_missing_columns(sqlite::Database& db, const std::string& schema_sql) {
  auto reference = sqlite::Database::open(":memory:");
  if (!reference) return reference.status();
  if (Status made = reference->exec(schema_sql); !made) return made;
  auto tables = reference->query("SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!tables) return tables.status();
  for (const auto& table_row : *tables) {
    const std::string table = sqlite::to_string(table_row[0]);
    auto present = db.query(kColumnsSql, {table});
    if (!present) return present.status();
    std::set<std::string> names;
    for (const auto& column : *present) names.insert(sqlite::to_string(column[0]));
    auto wanted = reference->query(kColumnsSql, {table});
    if (!wanted) return wanted.status();
    for (const auto& column : *wanted) {
      if (names.count(sqlite::to_string(column[0])) != 0) continue;
      Status added =
          db.exec("ALTER TABLE \"" + table + "\" ADD COLUMN " + column_definition(column));
      if (!added) return added.with_context("adding " + table + "." + sqlite::to_string(column[0]));
    }
  }
  return Status::ok();
}

}  // namespace scalestudy::campaign
