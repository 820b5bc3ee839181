#include "orchestrator/results/report/study_report.hpp"

#include <filesystem>
#include <fstream>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/plots.hpp"
#include "orchestrator/results/report/report_render.hpp"

namespace scalestudy::results {

StudyReport make_study_report(const StudyReportRequest& request) {
  StudyReport made;
  auto fail = [&made](StudyReport::FailedStep step, const Status& status) {
    made.failed_step = step;
    made.failure = status;
    return std::move(made);
  };
  if (request.ingest) {
    auto ingested = ingest_study(request.database);
    if (!ingested) return fail(StudyReport::FailedStep::kIngest, ingested.status());
    made.ingest_failures = ingested->failures;
    made.ingest_kept = ingested->kept;
  }
  auto db = sqlite::Database::open(request.database, sqlite::OpenMode::kReadOnly);
  if (!db) return fail(StudyReport::FailedStep::kOpen, db.status());
  made.db = std::move(*db);
  auto report = build_report(*made.db, request.options);
  if (!report) return fail(StudyReport::FailedStep::kBuild, report.status());
  made.report = std::move(*report);

  // Beside the campaign's runs: the database's own name is "<study>[@<campaign>]".
  made.plot_dir =
      request.plot_dir.value_or((std::filesystem::path(request.results_dir) /
                                 std::filesystem::path(request.database).stem() / "report")
                                    .string());
  if (request.plots) {
    auto plots = write_plots(*made.report, {made.plot_dir, "gnuplot"});
    if (!plots) return fail(StudyReport::FailedStep::kPlots, plots.status());
    made.plot_warnings = plots->warnings;
    for (const auto& file : plots->files) {
      if (std::filesystem::path(file).extension() == ".svg") made.svg_paths.push_back(file);
    }
    made.plots_written = !plots->files.empty();
  }
  if (request.html) {
    std::error_code ignored;
    std::filesystem::create_directories(made.plot_dir, ignored);
    const std::string html_path = (std::filesystem::path(made.plot_dir) / "report.html").string();
    std::ofstream html(html_path);
    html << render_report(*made.report, ReportFormat::kHtml, made.svg_paths);
    if (!html) {
      return fail(StudyReport::FailedStep::kHtml, Status::error("cannot write " + html_path));
    }
    made.html_path = html_path;
  }
  return made;
}

}  // namespace scalestudy::results
