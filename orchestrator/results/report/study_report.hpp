// A study database's report as `scalestudy report` and `run` make it: the run databases
// ingested first (unless asked not to), the report built, its plots written (gnuplot) and
// the HTML page beside them. What each step says is kept as values, in order; the first
// step that fails ends it, and what came before stays.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {

struct StudyReportRequest {
  std::string database;     // the study database, located
  std::string results_dir;  // the plots go to <results_dir>/<database stem>/report by default
  ReportOptions options;
  bool ingest = true;
  bool plots = true;
  std::optional<std::string> plot_dir;  // instead of the default above
  bool html = false;                    // also <plot_dir>/report.html
};

struct StudyReport {
  enum class FailedStep { kNone, kIngest, kOpen, kBuild, kPlots, kHtml };
  FailedStep failed_step = FailedStep::kNone;
  Status failure;
  std::vector<std::string> ingest_failures;  // ingest's failures, "<run_id>: <reason>"
  std::vector<std::string> ingest_kept;      // runs whose folder is gone, measurements kept
  std::vector<std::string> plot_warnings;
  std::string plot_dir;
  bool plots_written = false;
  std::vector<std::string> svg_paths;
  std::string html_path;               // set when the page was written
  std::optional<sqlite::Database> db;  // the study database, read-only, once opened
  std::optional<Report> report;        // once built
};

StudyReport make_study_report(const StudyReportRequest& request);

}  // namespace scalestudy::results
