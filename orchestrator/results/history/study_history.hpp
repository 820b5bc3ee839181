// A study's history: every campaign of it under a results dir (<study>.sqlite, the default
// campaign, and <study>@<name>.sqlite, `submit --campaign`), oldest first, and per point of
// the study (its configuration at a scale, on one system: the system's id and content hash
// are part of the point, so a series never mixes systems) the series of one metric over
// the campaigns, with the change points found in it (change_points.hpp) and what differs in
// the runs' provenance across each. Read-only over the study databases; one thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/results/compare/provenance_diff.hpp"
#include "orchestrator/results/history/change_points.hpp"

namespace scalestudy::results {

enum class HistoryMetric { kThroughput, kEfficiency, kTimeToTarget };
const char* to_string(HistoryMetric metric);
Result<HistoryMetric> parse_history_metric(const std::string& text);
// Throughput and efficiency fall when things slow down; time to target rises.
bool higher_is_better(HistoryMetric metric);

struct HistoryOptions {
  HistoryMetric metric = HistoryMetric::kThroughput;
  std::string point;  // only points whose label contains this; empty: all
  ChangePointSettings detector;
};

struct CampaignInfo {
  std::string name;
  std::string created_at;  // ISO-8601 UTC
  std::string database_path;
};

// One campaign's value of one point: the mean over its repeats (throughput, efficiency) or
// their median (time to target), with the 95% CI half-width of the mean from 3 repeats.
struct HistoryEntry {
  size_t campaign = 0;  // index into StudyHistory::campaigns
  double value = 0;
  std::optional<double> ci95_half_width;
  int repeats = 0;
  std::string commit;  // the runs' recorded git commit(s); empty when none recorded
  std::vector<std::string> run_ids;
};

// A change point of a series: the campaign that starts the new segment, its statistics,
// whether it is a slowdown, and what differs between the runs either side of it.
struct HistoryChange {
  size_t entry = 0;  // index into HistorySeries::entries of the first new value
  ChangePoint stats;
  bool slower = false;
  std::vector<ProvenanceDifference> differences;
};

struct HistorySeries {
  std::string point;   // "default N=2 nodes=1"
  std::string system;  // "<id>#<hash>", empty without one
  std::vector<HistoryEntry> entries;
  std::vector<HistoryChange> changes;
};

struct StudyHistory {
  std::string study;
  HistoryMetric metric = HistoryMetric::kThroughput;
  ChangePointSettings detector;
  std::optional<double> regression_pct;  // the newest campaign's report.thresholds
  std::vector<CampaignInfo> campaigns;
  std::vector<HistorySeries> series;
  std::vector<std::string> warnings;
};

// The study a database holds (its study row's name); nothing for a file that is not a
// study database.
std::optional<std::string> database_study(const std::string& path);

// The study's databases under `results_dir`: <study>.sqlite and <study>@*.sqlite whose study
// row names it, oldest campaign first, none made before `since` (an ISO date; "" for all).
std::vector<CampaignInfo> study_campaigns(const std::string& results_dir, const std::string& study,
                                          const std::string& since = "");

// The history over `campaigns` (study_campaigns', at least one).
Result<StudyHistory> load_study_history(std::vector<CampaignInfo> campaigns,
                                        const std::string& study, const HistoryOptions& options);

// A series measured by the newest campaign whose newest segment is slower by more than
// `threshold_pct` than its reference: the best earlier segment (the newest of equal ones),
// the level before the first slowdown the series has not won back. So neither a partial
// recovery nor a later slowdown moves it: 1000, 700, 720 is open at -28%, and 1000, 700,
// 720, 600 at -40%. The regression is open (`history --check` exits 1) since the change
// that left the reference.
struct OpenRegression {
  size_t series = 0;
  size_t change = 0;  // index into its changes: the first after the reference segment
  double reference_level = 0, newest_level = 0;  // the two segments' means
  double change_pct = 0;                         // newest against reference
};
std::vector<OpenRegression> open_regressions(const StudyHistory& history, double threshold_pct);

}  // namespace scalestudy::results
