#include "orchestrator/cli/report_flow.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/system_choice.hpp"
#include "orchestrator/profiling/breakdown_report.hpp"
#include "orchestrator/profiling/profile_store.hpp"
#include "orchestrator/results/analysis/thresholds.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/plots.hpp"
#include "orchestrator/results/report/report_render.hpp"

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
    auto database =
        campaign::locate_study_database(*comm_model, results_dir, naming_only_system_choice());
    if (!database) return database.status().with_context("--comm-model");
    options.comm_model_database = *database;
  }
  return options;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& warning : warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
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
  auto database = campaign::locate_study_database(study, results_dir, naming_only_system_choice());
  if (!database) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, database.status().message().c_str());
    return kExitEnvironment;
  }
  if (!parsed.has("--no-ingest")) {
    auto ingested = results::ingest_study(*database);
    if (!ingested) {
      std::fprintf(stderr, "scalestudy %s: %s\n", command, ingested.status().message().c_str());
      return kExitFailure;
    }
    for (const auto& failure : ingested->failures) {
      std::fprintf(stderr, "ingest: run failed %s\n", failure.c_str());
    }
    for (const auto& kept : ingested->kept) std::fprintf(stderr, "ingest: %s\n", kept.c_str());
  }
  auto db = sqlite::Database::open(*database, sqlite::OpenMode::kReadOnly);
  if (!db) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, db.status().message().c_str());
    return kExitEnvironment;
  }
  auto report = results::build_report(*db, *options);
  if (!report) {
    std::fprintf(stderr, "scalestudy %s: %s\n", command, report.status().message().c_str());
    return kExitFailure;
  }

  // Beside the campaign's runs: the database's own name is "<study>[@<campaign>]".
  const std::string plot_dir = parsed.value_or(
      "--plots",
      (std::filesystem::path(results_dir) / std::filesystem::path(*database).stem() / "report")
          .string());
  std::vector<std::string> svg_paths;
  if (!parsed.has("--no-plots")) {
    auto plots = results::write_plots(*report, {plot_dir, "gnuplot"});
    if (!plots) {
      std::fprintf(stderr, "scalestudy %s: %s\n", command, plots.status().message().c_str());
      return kExitFailure;
    }
    print_warnings(plots->warnings);
    for (const auto& file : plots->files) {
      if (std::filesystem::path(file).extension() == ".svg") svg_paths.push_back(file);
    }
    if (!plots->files.empty()) std::fprintf(stderr, "plots: %s\n", plot_dir.c_str());
  }
  if (parsed.has("--html")) {
    std::error_code ignored;
    std::filesystem::create_directories(plot_dir, ignored);
    const std::string html_path = (std::filesystem::path(plot_dir) / "report.html").string();
    std::ofstream html(html_path);
    html << results::render_report(*report, results::ReportFormat::kHtml, svg_paths);
    if (!html) {
      std::fprintf(stderr, "scalestudy report: cannot write %s\n", html_path.c_str());
      return kExitEnvironment;
    }
    std::fprintf(stderr, "html: %s\n", html_path.c_str());
  }
  std::fputs(results::render_report(*report, *format, svg_paths).c_str(), stdout);
  if (parsed.has("--profile")) {
    auto profiles = profiling::load_profiles(*db);
    if (!profiles) {
      std::fprintf(stderr, "scalestudy %s: %s\n", command, profiles.status().message().c_str());
      return kExitFailure;
    }
    std::fputs(profiling::render_profile_breakdown(*profiles).c_str(), stdout);
  }
  if (parsed.has("--check") && results::count_threshold_misses(*report) > 0) return kExitFailure;
  return report->runs_failed > 0 ? kExitFailure : kExitOk;
}

}  // namespace scalestudy::cli
