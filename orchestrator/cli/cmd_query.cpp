// `scalestudy query STUDY "SQL"|NAME`: read-only SQL over the study database.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/query/query.hpp"
#include "orchestrator/results/query/query_printer.hpp"
#include "orchestrator/results/query/read_only_open.hpp"

namespace scalestudy::cli {
namespace {

// The aligned table holds every row in memory for its widths; csv and json stream.
constexpr size_t kMaxTableRows = 100'000;

void print_named_queries() {
  std::printf("named queries:\n");
  for (const auto& query : results::named_queries()) {
    std::printf("  %-12s %s\n", query.name, query.description);
  }
}

int run_query(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--results-dir", "--format", "--time-limit-s"}, {"--list"}});
  if (!parsed) {
    std::fprintf(stderr, "scalestudy query: %s\n", parsed.status().message().c_str());
    return kExitUsage;
  }
  if (parsed->has("--list")) {
    print_named_queries();
    return kExitOk;
  }
  const std::string format = parsed->value_or("--format", "table");
  if (parsed->positionals.size() != 2 ||
      (format != "table" && format != "csv" && format != "json")) {
    std::fprintf(stderr,
                 "scalestudy query: expected STUDY and one SQL statement or query name, "
                 "--format table|csv|json (see --help, --list)\n");
    return kExitUsage;
  }
  results::QueryLimits limits;
  auto time_limit_s = parsed->int_value_or("--time-limit-s", 60);
  if (!time_limit_s || *time_limit_s < 1) {
    std::fprintf(stderr, "scalestudy query: --time-limit-s: expected a whole number of seconds\n");
    return kExitUsage;
  }
  limits.time_limit_s = *time_limit_s;
  auto database = campaign::locate_study_database(
      parsed->positionals[0], parsed->value_or("--results-dir", campaign::default_results_dir()),
      campaign::naming_only_system_choice());
  if (!database) {
    std::fprintf(stderr, "scalestudy query: %s\n", database.status().message().c_str());
    return kExitEnvironment;
  }
  if (auto note = results::read_only_note(*database)) {
    std::fprintf(stderr, "scalestudy query: %s\n", note->c_str());
  }
  Status status = Status::ok();
  if (format == "json") {
    results::JsonQueryPrinter printer(stdout);
    status = results::stream_read_only_query(*database, parsed->positionals[1], limits, printer);
    printer.finish();
  } else if (format == "csv") {
    results::CsvQueryPrinter printer(stdout);
    status = results::stream_read_only_query(*database, parsed->positionals[1], limits, printer);
  } else {
    results::TableQueryCollector collector(kMaxTableRows);
    status = results::stream_read_only_query(*database, parsed->positionals[1], limits, collector);
    if (status) {
      std::fputs(results::render_table(results::query_table(collector.result()),
                                       results::TableFormat::kText)
                     .c_str(),
                 stdout);
    }
  }
  if (!status) {
    std::fprintf(stderr, "scalestudy query: %s\n", status.message().c_str());
    return kExitFailure;
  }
  return kExitOk;
}

const char kQueryUsage[] =
    "usage: scalestudy query STUDY \"SQL\" | NAME [--format table|csv|json] [--results-dir DIR]\n"
    "                        [--time-limit-s S]\n"
    "       scalestudy query --list\n\n"
    "Runs one SELECT on a read-only connection to STUDY's database (tables study, runs,\n"
    "attempts and the m_* measurements; see docs/study-database.md). Writes, ATTACH and\n"
    "state-changing pragmas are refused. NAME is one of the named queries (--list).\n"
    "The query stops after --time-limit-s seconds (default 60). csv and json print rows\n"
    "as they come; the table format holds at most 100000 rows.";

}  // namespace

extern const Command kQueryCommand = {"query",
                                      "run read-only SQL or a named query on a study database",
                                      fixed_usage<kQueryUsage>, run_query};

}  // namespace scalestudy::cli
