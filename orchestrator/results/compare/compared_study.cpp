#include "orchestrator/results/compare/compared_study.hpp"

#include <algorithm>
#include <vector>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report_systems.hpp"

namespace scalestudy::results {

Result<ComparedStudy> load_compared_study(const std::string& database, const std::string& suffix,
                                          bool ingest, const std::string& label) {
  if (ingest) {
    auto ingested = ingest_study(database);
    if (!ingested) return ingested.status().with_context(label);
  }
  auto db = sqlite::Database::open(database, sqlite::OpenMode::kReadOnly);
  if (!db) return db.status();
  // STUDY@SYSTEM when the study ran on a system of that name, else STUDY@COMMIT.
  auto report = build_report(*db);
  if (!report) return report.status().with_context(label);
  const std::vector<std::string> systems = report_systems(*report);
  if (std::find(systems.begin(), systems.end(), suffix) != systems.end()) {
    report = report_on_system(*report, suffix);
  } else if (!suffix.empty()) {
    ReportOptions options;
    options.git_commit = suffix;
    report = build_report(*db, options);
    if (!report) return report.status().with_context(label);
  }
  std::vector<std::string> run_ids;
  for (const auto& point : report->points) {
    run_ids.insert(run_ids.end(), point.run_ids.begin(), point.run_ids.end());
  }
  auto provenance = load_run_provenance(*db, run_ids);
  if (!provenance) return provenance.status().with_context(label);
  return ComparedStudy{std::move(*report), std::move(*provenance)};
}

}  // namespace scalestudy::results
