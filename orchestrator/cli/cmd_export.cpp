// `scalestudy export STUDY --csv DIR`: runs.csv and epochs.csv for spreadsheets and pandas.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/query/export_csv.hpp"

namespace scalestudy::cli {
namespace {

const char kExportUsage[] =
    "usage: scalestudy export STUDY --csv DIR [--results-dir DIR]\n\n"
    "Writes DIR/runs.csv (one row per run: job_id, run_id, repeat, nodes, gpus, ranks,\n"
    "global_batch, per_gpu_batch, config, state, throughput_samples_per_s, time_per_epoch_s,\n"
    "step_ms_median, final_val_acc, ..., git_commit, ...) and DIR/epochs.csv (one row per run\n"
    "and epoch). Ingest first (scalestudy ingest STUDY).";

int run_export(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--results-dir", "--csv"}, {}});
  if (!parsed || parsed->positionals.size() != 1 || !parsed->value("--csv")) {
    std::fprintf(stderr, "scalestudy export: %s\n",
                 parsed ? "expected STUDY --csv DIR" : parsed.status().message().c_str());
    return kExitUsage;
  }
  auto database = campaign::locate_study_database(
      parsed->positionals[0], parsed->value_or("--results-dir", campaign::default_results_dir()),
      campaign::naming_only_system_choice());
  if (!database) {
    std::fprintf(stderr, "scalestudy export: %s\n", database.status().message().c_str());
    return kExitEnvironment;
  }
  auto files = results::export_csv(*database, *parsed->value("--csv"));
  if (!files) {
    std::fprintf(stderr, "scalestudy export: %s\n", files.status().message().c_str());
    return kExitFailure;
  }
  for (const auto& file : *files) std::printf("wrote %s\n", file.c_str());
  return kExitOk;
}

}  // namespace

extern const Command kExportCommand = {"export", "write a study's runs and epochs as CSV",
                                       fixed_usage<kExportUsage>, run_export};

}  // namespace scalestudy::cli
