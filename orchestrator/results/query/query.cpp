#include "orchestrator/results/query/query.hpp"

#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "orchestrator/results/query/read_only_open.hpp"

namespace scalestudy::results {
namespace {

// Pragmas that only read; those in kTableArgumentPragmas may take a table name.
const std::set<std::string> kReadPragmas = {
    "table_info",     "table_xinfo",      "table_list",    "index_list",      "index_info",
    "index_xinfo",    "foreign_key_list", "database_list", "function_list",   "pragma_list",
    "collation_list", "compile_options",  "user_version",  "schema_version",  "page_count",
    "page_size",      "journal_mode",     "query_only",    "integrity_check", "quick_check"};
const std::set<std::string> kTableArgumentPragmas = {
    "table_info",       "table_xinfo",     "index_list",  "index_info", "index_xinfo",
    "foreign_key_list", "integrity_check", "quick_check", "table_list"};

struct Refusal {
  std::string what;  // the first refused action, for the error message
};

int authorize(void* user_data, int action, const char* arg1, const char* arg2, const char*,
              const char*) {
  auto* refusal = static_cast<Refusal*>(user_data);
  auto refuse = [&](std::string what) {
    if (refusal->what.empty()) refusal->what = std::move(what);
    return SQLITE_DENY;
  };
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_PRAGMA: {
      const std::string name = arg1 ? arg1 : "";
      if (kReadPragmas.count(name) && (!arg2 || kTableArgumentPragmas.count(name))) {
        return SQLITE_OK;
      }
      return refuse("PRAGMA " + name + (arg2 ? " = " + std::string(arg2) : std::string()));
    }
    case SQLITE_ATTACH:
      return refuse("ATTACH");
    case SQLITE_DETACH:
      return refuse("DETACH");
    case SQLITE_INSERT:
      return refuse(std::string("INSERT into ") + (arg1 ? arg1 : "?"));
    case SQLITE_UPDATE:
      // Preparing a table-valued pragma (SELECT * FROM pragma_table_info('runs')) asks
      // for UPDATE of the schema table's columns; query_only, the read-only connection and
      // the read-only statement check still stop any real write.
      if (arg1 && std::string(arg1) == "sqlite_master") return SQLITE_OK;
      return refuse(std::string("UPDATE of ") + (arg1 ? arg1 : "?"));
    case SQLITE_DELETE:
      return refuse(std::string("DELETE from ") + (arg1 ? arg1 : "?"));
    default:
      return refuse("a statement that changes the database (action " + std::to_string(action) +
                    ")");
  }
}

std::string refused(const std::string& path, const std::string& sql, const std::string& what) {
  return path + ": scalestudy query is read-only; refused \"" + sql.substr(0, 60) + "\" (" + what +
         "); `scalestudy query --list` shows the named queries";
}

// Interrupts the statement once the deadline has passed; SQLite calls it every few
// thousand virtual-machine instructions.
struct Deadline {
  std::chrono::steady_clock::time_point at;
  bool expired = false;
};

int past_deadline(void* user_data) {
  auto* deadline = static_cast<Deadline*>(user_data);
  deadline->expired = std::chrono::steady_clock::now() >= deadline->at;
  return deadline->expired ? 1 : 0;
}

constexpr int kProgressInstructions = 10'000;

std::vector<sqlite::Value> current_row(sqlite3_stmt* statement) {
  std::vector<sqlite::Value> row;
  for (int c = 0; c < sqlite3_column_count(statement); ++c) {
    switch (sqlite3_column_type(statement, c)) {
      case SQLITE_INTEGER:
        row.push_back(static_cast<int64_t>(sqlite3_column_int64(statement, c)));
        break;
      case SQLITE_FLOAT:
        row.push_back(sqlite3_column_double(statement, c));
        break;
      case SQLITE_NULL:
        row.push_back(std::monostate{});
        break;
      default:
        row.push_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, c)),
                                  sqlite3_column_bytes(statement, c)));
    }
  }
  return row;
}

class CollectingSink : public QueryRowSink {
 public:
  explicit CollectingSink(QueryResult& result) : result_(result) {}
  void begin(const std::vector<std::string>& columns) override { result_.columns = columns; }
  Status row(const std::vector<sqlite::Value>& values) override {
    result_.rows.push_back(values);
    return Status::ok();
  }

 private:
  QueryResult& result_;
};

}  // namespace

const std::vector<NamedQuery>& named_queries() {
  static const std::vector<NamedQuery> kQueries = {
      {"runs", "every planned run: scale, configuration, state, job id",
       "SELECT run_id, repeat, nodes, world_size, gpus_per_node, global_batch, per_gpu_batch, "
       "varied_json, state, attempts, job_id, reason FROM runs ORDER BY rowid"},
      {"failed", "runs that failed, timed out or could not be ingested, with the reason",
       "SELECT r.run_id, r.state, r.attempts, r.job_id, coalesce(i.reason, r.reason) AS reason "
       "FROM runs r LEFT JOIN m_ingest i ON i.run_id = r.run_id WHERE r.state IN ('FAILED', "
       "'TIMEOUT', 'PREEMPTED', 'NODE_FAIL', 'CANCELLED', 'OUT_OF_MEMORY') OR i.status = "
       "'failed' ORDER BY r.rowid"},
      {"throughput", "per run: global samples/s, median step time, final validation accuracy",
       "SELECT r.run_id, r.world_size, r.global_batch, r.varied_json, "
       "max(CASE WHEN s.name = 'samples_per_s' THEN s.value END) AS samples_per_s, "
       "max(CASE WHEN s.name = 'step_ms_median' THEN s.value END) AS step_ms_median, "
       "max(CASE WHEN s.name = 'final_val_acc' THEN s.value END) AS final_val_acc "
       "FROM runs r JOIN m_summary s ON s.run_id = r.run_id AND s.rank = 0 "
       "GROUP BY r.run_id ORDER BY r.world_size, r.rowid"},
      {"phases", "per run and phase: mean and median ms per step over ranks (warm-up excluded)",
       "SELECT run_id, phase, avg(mean_ms) AS mean_ms, avg(median_ms) AS median_ms, "
       "max(max_ms) AS max_ms, sum(steps) AS steps FROM m_phases GROUP BY run_id, phase "
       "ORDER BY run_id, phase"},
      {"provenance", "rank 0's provenance of every run (git commit, versions, hosts, env)",
       "SELECT run_id, key, value FROM m_provenance WHERE rank = 0 ORDER BY run_id, key"},
      {"epochs", "per run and epoch: loss, accuracy, throughput and time (rank 0)",
       "SELECT run_id, epoch, lr, train_loss, train_acc, val_loss, val_acc, samples_per_s, "
       "epoch_s FROM m_epochs WHERE rank = 0 ORDER BY run_id, epoch"},
      {"memory", "per run: peak GPU memory and CPU RSS over ranks",
       "SELECT run_id, max(CASE WHEN name = 'gpu_mem_peak_bytes' THEN value END) AS "
       "gpu_mem_peak_bytes, max(CASE WHEN name = 'cpu_rss_peak_bytes' THEN value END) AS "
       "cpu_rss_peak_bytes FROM m_summary GROUP BY run_id ORDER BY run_id"},
      {"collectives", "all-reduce benchmark results (rank 0): size, time, algbw, busbw",
       "SELECT run_id, op, bytes, dtype, time_us, algbw_gbps, busbw_gbps FROM m_collectives "
       "WHERE rank = 0 ORDER BY run_id, bytes"},
      {"ingest", "what the last ingest did with each run",
       "SELECT run_id, status, reason, ranks, ingested_at FROM m_ingest ORDER BY run_id"},
  };
  return kQueries;
}

Status stream_read_only_query(const std::string& study_db_path, const std::string& sql_or_name,
                              const QueryLimits& limits, QueryRowSink& sink) {
  if (!std::filesystem::exists(study_db_path)) {
    return Status::error(study_db_path + ": no such study database");
  }
  std::string sql = sql_or_name;
  for (const auto& named : named_queries()) {
    if (sql_or_name == named.name) sql = named.sql;
  }
  auto db = open_study_database_for_reading(study_db_path);
  if (!db) return db.status();
  if (Status status = db->exec("PRAGMA query_only = 1"); !status) return status;
  Refusal refusal;
  sqlite3_set_authorizer(db->handle(), authorize, &refusal);
  Deadline deadline{std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(limits.time_limit_s))};
  sqlite3_progress_handler(db->handle(), kProgressInstructions, past_deadline, &deadline);

  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  const int code =
      sqlite3_prepare_v2(db->handle(), sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> statement(raw, sqlite3_finalize);
  if (!refusal.what.empty()) return Status::error(refused(study_db_path, sql, refusal.what));
  if (code != SQLITE_OK) {
    std::string message = study_db_path + ": " + sqlite3_errmsg(db->handle());
    if (message.find("no such table: m_") != std::string::npos) {
      message += " (no measurements yet: run `scalestudy ingest` first)";
    }
    return Status::error(message);
  }
  if (!raw) return Status::error(study_db_path + ": empty query");
  for (const char* rest = tail; rest && *rest; ++rest) {
    if (!std::isspace(static_cast<unsigned char>(*rest)) && *rest != ';') {
      return Status::error(study_db_path + ": one statement per query, found more after: " +
                           std::string(tail).substr(0, 60));
    }
  }
  if (!sqlite3_stmt_readonly(raw)) {
    return Status::error(refused(study_db_path, sql, "the statement writes"));
  }
  std::vector<std::string> columns;
  for (int c = 0; c < sqlite3_column_count(raw); ++c)
    columns.push_back(sqlite3_column_name(raw, c));
  sink.begin(columns);
  while (true) {
    const int step = sqlite3_step(raw);
    if (step == SQLITE_DONE) break;
    if (step == SQLITE_ROW) {
      if (Status status = sink.row(current_row(raw)); !status) return status;
      continue;
    }
    if (deadline.expired) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", limits.time_limit_s);
      return Status::error(study_db_path + ": the query ran past its time limit of " + limit +
                           " s and was stopped (--time-limit-s raises it)");
    }
    if (!refusal.what.empty()) return Status::error(refused(study_db_path, sql, refusal.what));
    return Status::error(study_db_path + ": " + sqlite3_errmsg(db->handle()));
  }
  return Status::ok();
}

Result<QueryResult> run_read_only_query(const std::string& study_db_path,
                                        const std::string& sql_or_name, const QueryLimits& limits) {
  QueryResult result;
  CollectingSink sink(result);
  if (Status status = stream_read_only_query(study_db_path, sql_or_name, limits, sink); !status) {
    return status;
  }
  return result;
}

std::string query_cell_text(const sqlite::Value& value) {
  if (const auto* d = std::get_if<double>(&value)) {
    char buffer[40];
    if (std::floor(*d) == *d && std::fabs(*d) < 1e15) {
      std::snprintf(buffer, sizeof buffer, "%.0f", *d);
    } else {
      std::snprintf(buffer, sizeof buffer, "%.10g", *d);
    }
    return buffer;
  }
  return sqlite::to_string(value);
}

Table query_table(const QueryResult& result) {
  Table table;
  table.headers = result.columns;
  for (const auto& row : result.rows) {
    std::vector<std::string> cells;
    for (const auto& value : row) cells.push_back(query_cell_text(value));
    table.rows.push_back(std::move(cells));
  }
  return table;
}

nlohmann::ordered_json query_row_json(const std::vector<std::string>& columns,
                                      const std::vector<sqlite::Value>& row) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (size_t c = 0; c < row.size() && c < columns.size(); ++c) {
    const auto& value = row[c];
    if (const auto* i = std::get_if<int64_t>(&value))
      object[columns[c]] = *i;
    else if (const auto* d = std::get_if<double>(&value))
      object[columns[c]] = *d;
    else if (const auto* s = std::get_if<std::string>(&value))
      object[columns[c]] = *s;
    else
      object[columns[c]] = nullptr;
  }
  return object;
}

std::string query_json(const QueryResult& result) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : result.rows) rows.push_back(query_row_json(result.columns, row));
  return rows.dump(2) + "\n";
}

}  // namespace scalestudy::results
