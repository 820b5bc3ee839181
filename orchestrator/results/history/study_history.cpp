#include "orchestrator/results/history/study_history.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "orchestrator/results/query/read_only_open.hpp"
#include "orchestrator/results/report/report.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> single_text(sqlite::Database& db, const std::string& sql) {
  auto rows = db.query(sql);
  if (!rows || rows->empty() || std::holds_alternative<std::monostate>(rows->front()[0])) {
    return std::nullopt;
  }
  return sqlite::to_string(rows->front()[0]);
}

// The campaign a database holds: its record, else (a database from before campaigns) the
// default one, made when its first run was submitted.
CampaignInfo campaign_of(sqlite::Database& db, const std::string& path) {
  CampaignInfo campaign{"default", "", path};
  auto rows = db.query("SELECT name, created_at FROM campaign");
  if (rows && !rows->empty()) {
    campaign.name = sqlite::to_string(rows->front()[0]);
    campaign.created_at = sqlite::to_string(rows->front()[1]);
  } else {
    campaign.created_at = single_text(db, "SELECT MIN(submitted_at) FROM attempts").value_or("");
  }
  return campaign;
}

}  // namespace

std::optional<std::string> database_study(const std::string& path) {
  auto db = open_study_database_for_reading(path);
  if (!db) return std::nullopt;
  return single_text(*db, "SELECT name FROM study");
}

std::vector<CampaignInfo> study_campaigns(const std::string& results_dir, const std::string& study,
                                          const std::string& since) {
  std::vector<CampaignInfo> campaigns;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(results_dir, error)) {
    if (entry.path().extension() != ".sqlite") continue;
    const std::string stem = entry.path().stem().string();
    if (stem != study && stem.rfind(study + "@", 0) != 0) continue;
    auto db = open_study_database_for_reading(entry.path().string());
    if (!db) continue;
    if (single_text(*db, "SELECT name FROM study") != study) continue;
    CampaignInfo campaign = campaign_of(*db, entry.path().string());
    if (!since.empty() && campaign.created_at < since) continue;
    campaigns.push_back(std::move(campaign));
  }
  // Campaigns made within one second (their dates' resolution) by name, c9 before c10.
  std::sort(campaigns.begin(), campaigns.end(), [](const CampaignInfo& a, const CampaignInfo& b) {
    return std::make_tuple(a.created_at, a.name.size(), a.name) <
           std::make_tuple(b.created_at, b.name.size(), b.name);
  });
  return campaigns;
}

namespace {

// "<id>#<first 8 of its hash>" of the system a run was planned on; empty without one.
std::string system_of(sqlite::Database& db, const std::string& run_id) {
  auto rows = db.query(
      "SELECT json_extract(spec_json, '$.system.id'), json_extract(spec_json, '$.system.hash') "
      "FROM runs WHERE run_id = ?",
      {run_id});
  if (!rows || rows->empty()) return "";
  const std::string id = sqlite::to_string(rows->front()[0]);
  const std::string hash = sqlite::to_string(rows->front()[1]);
  return id.empty() ? "" : id + "#" + hash.substr(0, 8);
}

// What tells a report's points apart: configuration, ranks, nodes and global batch.
std::string point_label(const ReportPoint& point) {
  return point.config_label + " N=" + std::to_string(point.world_size) +
         " nodes=" + std::to_string(point.nodes) + " batch=" + std::to_string(point.global_batch);
}

// The point's value of `metric`, when it has one.
std::optional<HistoryEntry> entry_of(const ReportPoint& point, HistoryMetric metric) {
  HistoryEntry entry;
  entry.repeats = static_cast<int>(point.run_ids.size());
  entry.run_ids = point.run_ids;
  switch (metric) {
    case HistoryMetric::kThroughput:
      if (point.throughput_samples_per_s.count == 0) return std::nullopt;
      entry.value = point.throughput_samples_per_s.mean;
      entry.ci95_half_width = point.throughput_samples_per_s.ci95_half_width;
      return entry;
    case HistoryMetric::kEfficiency:
      if (!point.efficiency) return std::nullopt;
      entry.value = *point.efficiency;
      return entry;
    case HistoryMetric::kTimeToTarget:
      if (!point.to_target || !point.to_target->time_s) return std::nullopt;
      entry.value = *point.to_target->time_s;
      return entry;
  }
  return std::nullopt;
}

// Each entry's runs' merged provenance, for the differences across change points.
using EntryProvenance = std::vector<ProvenanceValues>;

void find_changes(HistorySeries& series, const EntryProvenance& provenance, HistoryMetric metric,
                  const ChangePointSettings& detector) {
  std::vector<double> values;
  for (const HistoryEntry& entry : series.entries) values.push_back(entry.value);
  for (const ChangePoint& point : find_change_points(values, detector)) {
    HistoryChange change;
    change.entry = point.index;
    change.stats = point;
    change.slower = higher_is_better(metric) ? point.mean_after < point.mean_before
                                             : point.mean_after > point.mean_before;
    change.differences = diff_provenance(provenance[point.index - 1], provenance[point.index]);
    series.changes.push_back(std::move(change));
  }
}

std::optional<double> regression_threshold(sqlite::Database& db) {
  auto text = single_text(db, "SELECT report_json FROM study");
  if (!text) return std::nullopt;
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object() || !json.contains("thresholds") || !json["thresholds"].is_object()) {
    return std::nullopt;
  }
  const auto& thresholds = json["thresholds"];
  if (!thresholds.contains("regression_pct") || !thresholds["regression_pct"].is_number()) {
    return std::nullopt;
  }
  return thresholds["regression_pct"].get<double>();
}

}  // namespace

const char* to_string(HistoryMetric metric) {
  switch (metric) {
    case HistoryMetric::kThroughput:
      return "throughput";
    case HistoryMetric::kEfficiency:
      return "efficiency";
    case HistoryMetric::kTimeToTarget:
      return "time_to_target";
  }
  return "throughput";
}

Result<HistoryMetric> parse_history_metric(const std::string& text) {
  for (HistoryMetric metric :
       {HistoryMetric::kThroughput, HistoryMetric::kEfficiency, HistoryMetric::kTimeToTarget}) {
    if (text == to_string(metric)) return metric;
  }
  return Status::error("--metric is throughput, efficiency or time_to_target, not '" + text + "'");
}

bool higher_is_better(HistoryMetric metric) {
  return metric != HistoryMetric::kTimeToTarget;
}

Result<StudyHistory> load_study_history(std::vector<CampaignInfo> campaigns,
                                        const std::string& study, const HistoryOptions& options) {
  if (campaigns.empty()) return Status::error("no campaign of study '" + study + "'");
  StudyHistory history;
  history.study = study;
  history.metric = options.metric;
  history.detector = options.detector;
  history.campaigns = std::move(campaigns);
  // Series by point and system, in label order; each entry's provenance beside it.
  std::map<std::pair<std::string, std::string>, std::pair<HistorySeries, EntryProvenance>> found;
  for (size_t index = 0; index < history.campaigns.size(); ++index) {
    const CampaignInfo& campaign = history.campaigns[index];
    auto db = open_study_database_for_reading(campaign.database_path);
    if (!db) return db.status();
    auto report = build_report(*db);
    if (!report) return report.status().with_context(campaign.database_path);
    for (const std::string& warning : report->warnings) {
      history.warnings.push_back(campaign.name + ": " + warning);
    }
    if (index + 1 == history.campaigns.size()) history.regression_pct = regression_threshold(*db);
    for (const ReportPoint& point : report->points) {
      const std::string label = point_label(point);
      if (!options.point.empty() && label.find(options.point) == std::string::npos) continue;
      auto entry = entry_of(point, options.metric);
      if (!entry) continue;
      entry->campaign = index;
      auto provenance = load_run_provenance(*db, entry->run_ids);
      if (!provenance) return provenance.status();
      ProvenanceValues merged = merge_provenance(*provenance, entry->run_ids);
      if (auto commit = merged.find("git_commit"); commit != merged.end()) {
        entry->commit = joined_values(commit->second);
      }
      const std::string system = point.run_ids.empty() ? "" : system_of(*db, point.run_ids[0]);
      auto& [series, provenances] = found[{label, system}];
      series.point = label;
      series.system = system;
      series.entries.push_back(std::move(*entry));
      provenances.push_back(std::move(merged));
    }
  }
  for (auto& [key, pair] : found) {
    find_changes(pair.first, pair.second, options.metric, options.detector);
    history.series.push_back(std::move(pair.first));
  }
  return history;
}

std::vector<OpenRegression> open_regressions(const StudyHistory& history, double threshold_pct) {
  std::vector<OpenRegression> open;
  for (size_t index = 0; index < history.series.size(); ++index) {
    const HistorySeries& series = history.series[index];
    // Open only while the newest campaign measured the point.
    if (series.changes.empty() || series.entries.back().campaign + 1 != history.campaigns.size()) {
      continue;
    }
    const std::vector<HistoryChange>& changes = series.changes;
    // Segment k (k = 0 .. changes) starts at change k - 1; its mean is that change's after.
    auto level = [&](size_t segment) {
      return segment == 0 ? changes[0].stats.mean_before : changes[segment - 1].stats.mean_after;
    };
    const bool higher_better = higher_is_better(history.metric);
    auto better = [&](double a, double b) { return higher_better ? a > b : a < b; };
    // The reference is the best earlier level: a slowdown stays open until the series wins
    // that level back, whatever partial recoveries, drifts or further slowdowns came after
    // it. The newest of equal bests, so the report names the change that left it last.
    size_t reference = 0;
    for (size_t segment = 1; segment < changes.size(); ++segment) {
      if (!better(level(reference), level(segment))) reference = segment;
    }
    const double reference_level = level(reference);
    const double newest_level = level(changes.size());
    if (reference_level == 0) continue;
    const double change_pct = (newest_level / reference_level - 1) * 100;
    if (better(reference_level, newest_level) && std::fabs(change_pct) > threshold_pct) {
      open.push_back({index, reference, reference_level, newest_level, change_pct});
    }
  }
  return open;
}

}  // namespace scalestudy::results
