#include "orchestrator/cli/report_flow.hpp"

#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/profiling/breakdown_report.hpp"
#include "orchestrator/profiling/profile_store.hpp"
#include "orchestrator/results/analysis/thresholds.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "orchestrator/results/report/study_report.hpp"

namespace scalestudy::cli {
namespace {

Result<results::ReportOptions> report_options(const ParsedArgs& parsed,
                                              const std::string& results_dir) {
  results::ReportOptions options;
  if (auto baseline = parsed.value("--baseline")) {
    auto selector = results::parse_baseline_selector(*baseline);
    if (!selector) return selector.status();
    options.baseline_override = *selector;
  }
  const std::pair<const char*, std::optional<double> results::ReportOptions::*> numbers[] = {
      {"--input-bound-pct", &results::ReportOptions::input_bound_pct},
      {"--comm-bound-pct", &results::ReportOptions::comm_bound_pct},
      {"--target-gain-pct", &results::ReportOptions::target_gain_pct},
      {"--target-acc", &results::ReportOptions::target_acc}};
  for (const auto& [name, member] : numbers) {
    auto value = parsed.number_value(name);
    if (!value) return value.status();
    options.*member = *value;
  }
  if (auto project = parsed.value("--project")) {
    auto sizes = results::parse_world_sizes(*project);
    if (!sizes) {
      return Status::error("--project takes world sizes like 16,32,64,512, got '" + *project + "'");
    }
    options.project_world_sizes = *sizes;
  }
  if (auto comm_model = parsed.value("--comm-model")) {
    // A run database file (*.sqlite) is used as is, like a study database.
    auto database = campaign::locate_study_database(*comm_model, results_dir,
                                                    campaign::naming_only_system_choice());
    if (!database) return database.status().with_context("--comm-model");
    options.comm_model_database = *database;
  }
  return options;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& warning : warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
}

// The failed step's message and exit code; the HTML page's under `report`'s name, as ever.
int print_failure(const char* command, const results::StudyReport& made) {
  using FailedStep = results::StudyReport::FailedStep;
  const bool html = made.failed_step == FailedStep::kHtml;
  std::fprintf(stderr, "scalestudy %s: %s\n", html ? "report" : command,
               made.failure.message().c_str());
  return html || made.failed_step == FailedStep::kOpen ? kExitEnvironment : kExitFailure;
}

}  // namespace

const std::set<std::string> kReportValueOptions = {
    "--format",         "--baseline",        "--plots",      "--comm-model", "--input-bound-pct",
    "--comm-bound-pct", "--target-gain-pct", "--target-acc", "--project"};
const std::set<std::string> kReportFlagOptions = {"--html",    "--no-plots", "--no-ingest",
                                                  "--profile", "--check",    "--wide"};

int print_study_report(const char* command, const ParsedArgs& parsed, const std::string& study,
                       const std::string& results_dir) {
  auto format = results::parse_report_format(parsed.value_or("--format", "table"));
  if (format && *format == results::ReportFormat::kTable && parsed.has("--wide")) {
    format = results::ReportFormat::kWideTable;
  }
  auto options = report_options(parsed, results_dir);
  if (!format || !options) {
    std::fprintf(stderr, "scalestudy report: %s\n",
                 (!format ? format.status() : options.status()).message().c_str());
    return kExitUsage;
  }
  auto database =
      campaign::locate_study_database(study, results_dir, campaign::naming_only_system_choice());
  if (!database) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, database.status().message().c_str());
    return kExitEnvironment;
  }
  results::StudyReportRequest request{*database, results_dir, *options};
  request.ingest = !parsed.has("--no-ingest");
  request.plots = !parsed.has("--no-plots");
  request.plot_dir = parsed.value("--plots");
  request.html = parsed.has("--html");
  results::StudyReport made = results::make_study_report(request);
  for (const auto& failure : made.ingest_failures) {
    std::fprintf(stderr, "ingest: run failed %s\n", failure.c_str());
  }
  for (const auto& kept : made.ingest_kept) std::fprintf(stderr, "ingest: %s\n", kept.c_str());
  print_warnings(made.plot_warnings);
  if (made.plots_written) std::fprintf(stderr, "plots: %s\n", made.plot_dir.c_str());
  if (!made.html_path.empty()) std::fprintf(stderr, "html: %s\n", made.html_path.c_str());
  if (made.failed_step != results::StudyReport::FailedStep::kNone) {
    return print_failure(command, made);
  }
  std::fputs(results::render_report(*made.report, *format, made.svg_paths).c_str(), stdout);
  if (parsed.has("--profile")) {
    auto profiles = profiling::load_profiles(*made.db);
    if (!profiles) {
      std::fprintf(stderr, "scalestudy %s: %s\n", command, profiles.status().message().c_str());
      return kExitFailure;
    }
    std::fputs(profiling::render_profile_breakdown(*profiles).c_str(), stdout);
  }
  if (parsed.has("--check") && results::count_threshold_misses(*made.report) > 0) {
    return kExitFailure;
  }
  return made.report->runs_failed > 0 ? kExitFailure : kExitOk;
}

}  // namespace scalestudy::cli
