// QueryRowSink implementations that print a query's rows as they arrive: CSV and JSON
// stream any number of rows; the aligned text table needs every row for its column widths,
// so it holds at most a fixed number and refuses more. Not synchronised; one per query.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "orchestrator/results/query/query.hpp"

namespace scalestudy::results {

class CsvQueryPrinter : public QueryRowSink {
 public:
  explicit CsvQueryPrinter(std::FILE* out) : out_(out) {}
  void begin(const std::vector<std::string>& columns) override;
  Status row(const std::vector<sqlite::Value>& values) override;

 private:
  std::FILE* out_;
};

// The same text as query_json(): a JSON array of row objects.
class JsonQueryPrinter : public QueryRowSink {
 public:
  explicit JsonQueryPrinter(std::FILE* out) : out_(out) {}
  void begin(const std::vector<std::string>& columns) override { columns_ = columns; }
  Status row(const std::vector<sqlite::Value>& values) override;
  // Closes the array; call after the query, whatever its result.
  void finish();

 private:
  std::FILE* out_;
  std::vector<std::string> columns_;
  size_t rows_ = 0;
};

// Collects up to `max_rows` rows for render_table(); past that, row() is an error that
// points at the streaming formats.
class TableQueryCollector : public QueryRowSink {
 public:
  explicit TableQueryCollector(size_t max_rows) : max_rows_(max_rows) {}
  void begin(const std::vector<std::string>& columns) override { result_.columns = columns; }
  Status row(const std::vector<sqlite::Value>& values) override;
  const QueryResult& result() const { return result_; }

 private:
  size_t max_rows_;
  QueryResult result_;
};

}  // namespace scalestudy::results
