// `scalestudy report --site DIR`: a static site of a whole results directory, browsable
// from the file system with no server. index.html lists every study: its campaigns, its
// newest efficiency, its trend (the newest change point, or steady) and any open
// regression (history --check's), with links to its pages under studies/<study>/:
// report.html (the newest campaign's report), history.html (each point's series, change
// points marked) and compare.html (the newest campaign against the one before, when there
// are two). Every user string is escaped, as the HTML report's are. Reads the study
// databases as they are (ingest first); writes only under DIR.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::results {

// A study database directly under the results dir, campaigns included, and its study.
struct StudyDatabase {
  std::string path, study;
};
std::vector<StudyDatabase> site_databases(const std::string& results_dir);

struct SiteOptions {
  std::string results_dir, output_dir;
  double regression_pct = 5;  // when a study's report.thresholds set none
};

struct SiteOutcome {
  std::vector<std::string> pages;  // written, relative to output_dir
  std::vector<std::string> warnings;
};

// The site of the studies `databases` hold (site_databases', ingested).
Result<SiteOutcome> write_results_site(const SiteOptions& options,
                                       const std::vector<StudyDatabase>& databases);

}  // namespace scalestudy::results
