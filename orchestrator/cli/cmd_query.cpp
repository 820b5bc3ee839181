// `scalestudy query STUDY "SQL"|NAME`: read-only SQL over the study database.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/query.hpp"

namespace scalestudy::cli {
namespace {

void print_named_queries() {
  std::printf("named queries:\n");
  for (const auto& query : results::named_queries()) {
    std::printf("  %-12s %s\n", query.name, query.description);
  }
}

int run_query(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--results-dir", "--format"}, {"--list"}});
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
  auto database = campaign::locate_study_database(
      parsed->positionals[0], parsed->value_or("--results-dir", campaign::default_results_dir()));
  if (!database) {
    std::fprintf(stderr, "scalestudy query: %s\n", database.status().message().c_str());
    return kExitEnvironment;
  }
  auto result = results::run_read_only_query(*database, parsed->positionals[1]);
  if (!result) {
    std::fprintf(stderr, "scalestudy query: %s\n", result.status().message().c_str());
    return kExitFailure;
  }
  if (format == "json") {
    std::fputs(results::query_json(*result).c_str(), stdout);
  } else {
    const auto table_format =
        format == "csv" ? results::TableFormat::kCsv : results::TableFormat::kText;
    std::fputs(results::render_table(results::query_table(*result), table_format).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace

extern const Command kQueryCommand = {
    "query", "run read-only SQL or a named query on a study database",
    "usage: scalestudy query STUDY \"SQL\" | NAME [--format table|csv|json] [--results-dir DIR]\n"
    "       scalestudy query --list\n\n"
    "Runs one SELECT on a read-only connection to STUDY's database (tables study, runs,\n"
    "attempts and the m_* measurements; see docs/study-database.md). Writes, ATTACH and\n"
    "state-changing pragmas are refused. NAME is one of the named queries (--list).",
    run_query};

}  // namespace scalestudy::cli
