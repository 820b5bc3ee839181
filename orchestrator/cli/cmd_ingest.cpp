// `scalestudy ingest STUDY`: copies finished runs' rank databases into the study database.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/ingest/ingest.hpp"

namespace scalestudy::cli {
namespace {

int run_ingest(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--results-dir"}, {"--steps"}});
  if (!parsed || parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy ingest: %s\n",
                 parsed ? "expected one STUDY argument" : parsed.status().message().c_str());
    return kExitUsage;
  }
  auto database = campaign::locate_study_database(
      parsed->positionals[0], parsed->value_or("--results-dir", campaign::default_results_dir()),
      campaign::naming_only_system_choice());
  if (!database) {
    std::fprintf(stderr, "scalestudy ingest: %s\n", database.status().message().c_str());
    return kExitEnvironment;
  }
  auto faults = common::FaultInjector::from_environment();
  if (!faults) {
    std::fprintf(stderr, "scalestudy ingest: %s\n", faults.status().message().c_str());
    return kExitUsage;
  }
  results::IngestOptions options;
  options.faults = *faults;
  options.store_steps = parsed->has("--steps");
  auto outcome = results::ingest_study(*database, options);
  if (!outcome) {
    std::fprintf(stderr, "scalestudy ingest: %s\n", outcome.status().message().c_str());
    return kExitFailure;
  }
  std::printf("%s: %d runs ingested, %d unchanged, %d failed\n", database->c_str(),
              outcome->ingested, outcome->unchanged, outcome->failed);
  for (const auto& failure : outcome->failures) std::printf("  failed %s\n", failure.c_str());
  for (const auto& kept : outcome->kept) std::printf("  %s\n", kept.c_str());
  for (const auto& mismatch : outcome->system_mismatches) {
    std::fprintf(stderr, "warning: %s\n", mismatch.c_str());
  }
  return outcome->failed > 0 ? kExitFailure : kExitOk;
}

const char kIngestUsage[] =
    "usage: scalestudy ingest STUDY [--results-dir DIR] [--steps]\n\n"
    "Reads <out_dir>/rank*.sqlite of every completed run of STUDY (a study YAML, a study\n"
    "name, or a study database path) and copies them into the study database's m_* tables,\n"
    "in one transaction. Idempotent: unchanged runs are skipped. A corrupt, truncated or\n"
    "missing rank database marks that run FAILED with the reason; the rest is ingested.\n\n"
    "  --results-dir DIR  where <study>.sqlite lives (default $SCALESTUDY_RESULTS_DIR or results)\n"
    "  --steps            also store every step row (m_steps); phase aggregates are always kept\n\n"
    "exit: 0 ok; 1 some runs failed to ingest; 2 usage; 3 no study database";

}  // namespace

extern const Command kIngestCommand = {"ingest",
                                       "copy finished runs' measurements into the study database",
                                       fixed_usage<kIngestUsage>, run_ingest};

}  // namespace scalestudy::cli
