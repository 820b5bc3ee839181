// The report half shared by `scalestudy report` and `scalestudy run`: ingest, build the
// report, write plots (and the HTML page), and print it in the chosen format.
#pragma once

#include <set>
#include <string>

#include "orchestrator/cli/args.hpp"

namespace scalestudy::cli {

extern const std::set<std::string> kReportValueOptions;
extern const std::set<std::string> kReportFlagOptions;

// Returns the exit code: ok, failure when some runs failed, usage or environment errors.
int print_study_report(const char* command, const ParsedArgs& parsed, const std::string& study,
                       const std::string& results_dir);

}  // namespace scalestudy::cli
