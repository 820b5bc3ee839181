// `scalestudy plan STUDY.yaml`: expand a study and show its runs, optionally writing the
// sbatch script of every run. Nothing is submitted.
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "orchestrator/campaign/prepare_run.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/param_check_report.hpp"
#include "orchestrator/cli/submit_flow.hpp"
#include "orchestrator/results/report/text_table.hpp"
#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/submission/job_scripts.hpp"
#include "orchestrator/submission/plan_json.hpp"
#include "orchestrator/submission/profiles_dir.hpp"
#include "orchestrator/submission/study_plan.hpp"
#include "orchestrator/submission/system_choice.hpp"

namespace scalestudy::cli {
namespace {

namespace fs = std::filesystem;

const char kPlanUsage[] =
    "usage: scalestudy plan STUDY.yaml [--format table|json|csv] [--emit-scripts DIR]\n"
    "                       [--results-dir DIR] [--profiles-dir DIR]\n"
    "                       [--system ID[:VARIANT]]... [--packed]\n\n"
    "Expands a study into its runs and prints them: run id, repeat, nodes, GPUs (ranks on\n"
    "CPU runs), global and per-GPU batch, its system and the parameters that vary, then the\n"
    "totals: runs, node-hours and GPU-hours requested (time limit × nodes × GPUs) and, when\n"
    "earlier measured runs of the same configuration exist in a study database under the\n"
    "results dir, an estimate from their measured run time. A packed study (`allocation:\n"
    "packed`, or --packed) also shows its allocations: each run's step estimated from earlier\n"
    "measured runs (median x 1.25 + 60 s), else its slurm.time; the runs placed first-fit\n"
    "into allocations of the largest run's nodes within the partition's MaxTime (scontrol)\n"
    "and the system's limits.max_time. Nothing is submitted.\n\n"
    "options:\n"
    "  --format F          table (default), json (every resolved run) or csv\n"
    "  --emit-scripts DIR  also write DIR/<run_id>.sbatch, the exact job script of each run\n"
    "  --results-dir DIR   results root the scripts write to and earlier measured runs are\n"
    "                      looked up in (default: results); each run\n"
    "                      writes DIR/<study>/runs/<run_id>/\n"
    "  --profiles-dir DIR  where profile wrappers live (default: $SCALESTUDY_PROFILES_DIR,\n"
    "                      else the source tree's profiles/)\n"
    "  --system ID[:VAR]   plan on this system instead of the study's `systems:`\n"
    "                      (repeatable; `scalestudy systems list` names them). A run over\n"
    "                      its system's limits is an error naming both files' lines.\n"
    "  --packed            show the allocations of a packed submit (submit --packed)\n\n"
    "Every workload parameter is checked against what the workload binary says about its\n"
    "flags (--describe-flags json); a program that cannot say is noted and left unchecked.\n\n"
    "exit codes: 0 planned; 1 the study is invalid (every error is printed as\n"
    "file:line:column: field: message); 2 wrong arguments; 3 a file cannot be read or written.";

// The aligned table (`--format table`) or CSV, through the results module's table writer.
void print_rows(const Study& study, results::TableFormat format) {
  const bool text = format == results::TableFormat::kText;
  auto rows = submission::plan_table_rows(study, text);
  results::Table table;
  if (text) {
    table.title = "study " + study.name + " (" + study_kind_name(study.kind) +
                  "): " + std::to_string(study.runs.size()) +
                  (study.runs.size() == 1 ? " run" : " runs");
  }
  table.headers = std::move(rows.front());
  table.rows.assign(std::make_move_iterator(rows.begin() + 1), std::make_move_iterator(rows.end()));
  std::fputs(results::render_table(table, format).c_str(), stdout);
}

void print_totals(const submission::PlanTotals& totals, const char* prefix) {
  if (!totals.packing_text.empty()) {
    std::stringstream lines(totals.packing_text);
    for (std::string line; std::getline(lines, line);) std::printf("%s%s\n", prefix, line.c_str());
  }
  std::printf("%stotal: %s\n", prefix, describe_cost(totals.requested).c_str());
  std::printf("%s%s\n", prefix, results::describe_estimate(totals.estimate).c_str());
}

int run_plan(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--format", "--emit-scripts", "--results-dir", "--profiles-dir",
                                   submission::kSystemOption},
                                  {"--packed"}});
  if (!parsed) {
    std::fprintf(stderr, "scalestudy plan: %s\n", parsed.status().message().c_str());
    return kExitUsage;
  }
  if (parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy plan: expected one study file\n%s\n", kPlanUsage);
    return kExitUsage;
  }
  std::string format = parsed->value_or("--format", "table");
  if (format != "table" && format != "json" && format != "csv") {
    std::fprintf(stderr, "scalestudy plan: --format is table, json or csv, not '%s'\n",
                 format.c_str());
    return kExitUsage;
  }
  const std::string& path = parsed->positionals[0];
  if (!fs::is_regular_file(path)) {
    std::fprintf(stderr, "scalestudy plan: %s: no such study file\n", path.c_str());
    return kExitEnvironment;
  }
  Result<Study> study =
      load_study(path, submission::system_choice(parsed->values(submission::kSystemOption)));
  if (!study) {
    std::fprintf(stderr, "%s\n", study.status().message().c_str());
    return kExitFailure;
  }
  if (!report_workload_param_check(
          "plan", submission::check_study_workload_params(*study, campaign::executable_dir()))) {
    return kExitFailure;
  }
  auto planned = submission::plan_totals(*study, parsed->value_or("--results-dir", "results"),
                                         study->packed_allocation || parsed->has("--packed"));
  if (!planned) {
    std::fprintf(stderr, "scalestudy plan: %s\n", planned.status().message().c_str());
    return kExitFailure;
  }
  const submission::PlanTotals& totals = *planned;
  if (format == "json") {
    submission::write_plan_json(stdout, *study, totals);
  } else if (format == "csv") {
    print_rows(*study, results::TableFormat::kCsv);
    print_totals(totals, "# ");
  } else {
    print_rows(*study, results::TableFormat::kText);
    print_totals(totals, "");
    if (!totals.budget) std::printf("budget: %s\n", totals.budget.message().c_str());
  }
  for (const auto& risk : totals.warnings) std::fprintf(stderr, "warning: %s\n", risk.c_str());
  if (auto dir = parsed->value("--emit-scripts")) {
    auto failure = submission::write_job_scripts(
        *study, *dir, parsed->value_or("--results-dir", "results"),
        parsed->value_or("--profiles-dir", submission::default_profiles_dir()));
    if (failure) {
      std::fprintf(stderr, "scalestudy plan: %s\n", failure->status.message().c_str());
      return exit_code_of(failure->kind);
    }
    std::fprintf(stderr, "wrote %zu job scripts to %s\n", study->runs.size(), dir->c_str());
  }
  return kExitOk;
}

}  // namespace

extern const Command kPlanCommand = {"plan", "expand a study and show its runs and job scripts",
                                     fixed_usage<kPlanUsage>, run_plan};

}  // namespace scalestudy::cli
