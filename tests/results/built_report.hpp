// Test helper for the report suites: a fixture study ingested and reported as `scalestudy
// report` would, a look-up in the report's warnings, and the width and wrapping of rendered
// text. Header-only; the including suite links scalestudy_results.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "harness/core/sqlite.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/report/report.hpp"
#include "tests/results/fixture.hpp"

namespace scalestudy::results::testing {

// Ingests the study's runs and builds its report; the test stops when either fails.
inline Report report_of(const StudyFixture& study, const ReportOptions& options = {}) {
  auto ingested = ingest_study(study.db_path());
  REQUIRE_MESSAGE(ingested.is_ok(), ingested.status().message());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  auto report = build_report(*db, options);
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  return *report;
}

// The display width of `text`'s widest line (UTF-8 continuation bytes take no column).
inline size_t widest_line(const std::string& text) {
  size_t widest = 0, columns = 0;
  for (char byte : text) {
    if (byte == '\n') {
      widest = columns > widest ? columns : widest;
      columns = 0;
    } else if ((byte & 0xC0) != 0x80) {
      ++columns;
    }
  }
  return columns > widest ? columns : widest;
}

// `text` with the terminal's wrapped lines joined again: each line break before a
// continuation indented by two spaces becomes one space.
inline std::string unwrapped(std::string text) {
  for (size_t at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) {
    text.replace(at, 3, " ");
  }
  return text;
}

// Whether one of the report's warnings contains `part`.
inline bool has_warning(const Report& report, const std::string& part) {
  for (const auto& warning : report.warnings) {
    if (warning.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace scalestudy::results::testing
