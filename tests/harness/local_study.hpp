// Test helper for the study suites that drive the scalestudy CLI end to end on this machine:
// `scalestudy run STUDY --scheduler local` into a results folder, its JSON or HTML report,
// and a point of the JSON one. Header-only; builds on child_process.hpp (posix_spawn).
#pragma once

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/harness/child_process.hpp"

namespace scalestudy::testing {

// `scalestudy run STUDY --scheduler local` into `results`, waiting up to `timeout_s` for its
// runs, with its output in `output_path`. The test is bounded a little beyond that wait, so
// the CLI's own timeout, not the test's, ends a run that hangs.
inline Finished run_study_locally(const std::string& study, const std::string& results,
                                  int timeout_s, const std::string& output_path) {
  constexpr int kExitMargin_s = 20;
  return run_to_end(
      {binary("scalestudy"), "run", study, "--scheduler", "local", "--results-dir", results,
       "--timeout", std::to_string(timeout_s), "--poll-interval", "1", "--no-plots"},
      {}, output_path, timeout_s + kExitMargin_s);
}

// `scalestudy report STUDY --format FORMAT --results-dir RESULTS --no-plots EXTRA...`, its
// output (the report) in `output_path`.
inline Finished report_study(const std::string& study, const std::string& results,
                             const std::string& format, const std::string& output_path,
                             const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {binary("scalestudy"), "report", study,       "--format", format,
                                   "--results-dir",      results,  "--no-plots"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_to_end(argv, {}, output_path, 60);
}

// The study's JSON report (ingesting its runs first); the test stops when `report` fails.
inline nlohmann::json json_report(const std::string& study, const std::string& results,
                                  const std::string& output_path) {
  const Finished report = report_study(study, results, "json", output_path);
  REQUIRE(report.exit_code == 0);
  return nlohmann::json::parse(report.output);
}

// The study's HTML report (EXTRA: e.g. --no-ingest); the test stops when `report` fails.
inline std::string html_report(const std::string& study, const std::string& results,
                               const std::string& output_path,
                               const std::vector<std::string>& extra = {}) {
  const Finished report = report_study(study, results, "html", output_path, extra);
  REQUIRE(report.exit_code == 0);
  return report.output;
}

// The JSON report's point of `world_size`; null when it has none.
inline const nlohmann::json* point_of(const nlohmann::json& report, int world_size) {
  for (const nlohmann::json& point : report["points"]) {
    if (point["world_size"] == world_size) return &point;
  }
  return nullptr;
}

}  // namespace scalestudy::testing
