#include "orchestrator/results/site/results_site.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "orchestrator/results/compare/compare.hpp"
#include "orchestrator/results/compare/compare_render.hpp"
#include "orchestrator/results/history/history_render.hpp"
#include "orchestrator/results/query/read_only_open.hpp"
#include "orchestrator/results/report/report.hpp"
#include "orchestrator/results/report/report_render.hpp"
#include "orchestrator/results/report/text_table.hpp"
#include "orchestrator/study/study_name.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

Status write_page(const fs::path& path, const std::string& text) {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) return Status::error(path.string() + ": cannot write");
  return Status::ok();
}

Result<Report> report_of(const std::string& database_path) {
  auto db = open_study_database_for_reading(database_path);
  if (!db) return db.status();
  return build_report(*db);
}

// What the index says of one study.
struct StudyEntry {
  std::string name;
  size_t campaigns = 0;
  std::string newest_campaign;
  std::string efficiency = "-";  // at the newest campaign's largest scale
  std::string trend = "steady";
  std::string regression;  // empty: none open
  bool has_compare = false;
};

std::string efficiency_at_largest_scale(const Report& report) {
  const ReportPoint* largest = nullptr;
  for (const ReportPoint& point : report.points) {
    if (point.efficiency && (largest == nullptr || point.world_size > largest->world_size)) {
      largest = &point;
    }
  }
  return largest == nullptr ? "-"
                            : format_number(*largest->efficiency * 100, "%.1f") +
                                  " % at N=" + std::to_string(largest->world_size);
}

std::string index_page(const std::vector<StudyEntry>& studies, const std::string& results_dir) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>scalestudy "
      "results</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
      "collapse}td,th{border:1px solid #ccc;padding:3px 8px}.regression{color:#c00;font-weight:"
      "bold}</style></head><body>\n<h1>scalestudy results</h1>\n<p>" +
      html_escape(results_dir) + ": " + std::to_string(studies.size()) +
      " studies.</p>\n<table>\n<tr><th>study</th><th>campaigns</th><th>newest</th>"
      "<th>efficiency</th><th>trend</th><th>open regression</th><th>pages</th></tr>\n";
  for (const StudyEntry& study : studies) {
    const std::string dir = "studies/" + study.name + "/";
    html +=
        "<tr><td><a href=\"" + html_escape(dir + "report.html") + "\">" + html_escape(study.name) +
        "</a></td><td>" + std::to_string(study.campaigns) + "</td><td>" +
        html_escape(study.newest_campaign) + "</td><td>" + html_escape(study.efficiency) +
        "</td><td>" + html_escape(study.trend) + "</td><td" +
        (study.regression.empty() ? ">none"
                                  : " class=\"regression\">" + html_escape(study.regression)) +
        "</td><td><a href=\"" + html_escape(dir + "report.html") + "\">report</a> <a href=\"" +
        html_escape(dir + "history.html") + "\">history</a>" +
        (study.has_compare ? " <a href=\"" + html_escape(dir + "compare.html") + "\">compare</a>"
                           : std::string()) +
        "</td></tr>\n";
  }
  return html + "</table>\n</body></html>\n";
}

// One study's pages; what the index says of it.
Result<StudyEntry> write_study_pages(const SiteOptions& options, const std::string& study,
                                     SiteOutcome& outcome) {
  StudyEntry entry;
  entry.name = study;
  auto history = load_study_history(study_campaigns(options.results_dir, study), study, {});
  if (!history) return history.status();
  const std::vector<CampaignInfo>& campaigns = history->campaigns;
  entry.campaigns = campaigns.size();
  entry.newest_campaign = campaigns.back().name;
  const double threshold = history->regression_pct.value_or(options.regression_pct);
  const auto open = open_regressions(*history, threshold);
  for (const OpenRegression& regression : open) {
    const HistorySeries& series = history->series[regression.series];
    entry.regression += (entry.regression.empty() ? "" : "; ") + series.point + " " +
                        format_number(regression.change_pct, "%+.1f") + " %";
  }
  // The study's newest change point, of whichever point.
  std::optional<size_t> newest_change;
  for (const HistorySeries& series : history->series) {
    if (series.changes.empty()) continue;
    const HistoryChange& last = series.changes.back();
    const size_t campaign = series.entries[last.entry].campaign;
    if (newest_change && campaign <= *newest_change) continue;
    newest_change = campaign;
    entry.trend = series.point + ": " + (last.slower ? "slower " : "faster ") +
                  format_number(last.stats.forward_change() * 100, "%+.1f") + " % from " +
                  campaigns[campaign].name;
  }
  const fs::path dir = fs::path(options.output_dir) / "studies" / study;
  auto newest = report_of(campaigns.back().database_path);
  if (!newest) return newest.status().with_context(campaigns.back().database_path);
  entry.efficiency = efficiency_at_largest_scale(*newest);
  const std::vector<std::pair<std::string, std::string>> pages = {
      {"report.html", render_report(*newest, ReportFormat::kHtml)},
      {"history.html", render_history(*history, HistoryFormat::kHtml, open, threshold)}};
  for (const auto& [file, text] : pages) {
    if (Status written = write_page(dir / file, text); !written) return written;
    outcome.pages.push_back("studies/" + study + "/" + file);
  }
  if (campaigns.size() >= 2) {
    const CampaignInfo& before = campaigns[campaigns.size() - 2];
    auto older = report_of(before.database_path);
    if (!older) return older.status().with_context(before.database_path);
    // Each side as compare names it: STUDY for the default campaign, else STUDY@CAMPAIGN.
    auto side = [&](const CampaignInfo& campaign) {
      return campaign.name == "default" ? study : study + "@" + campaign.name;
    };
    const Comparison comparison =
        compare_reports(*older, *newest, side(before), side(campaigns.back()), threshold);
    if (Status written =
            write_page(dir / "compare.html", render_comparison(comparison, ReportFormat::kHtml));
        !written) {
      return written;
    }
    outcome.pages.push_back("studies/" + study + "/compare.html");
    entry.has_compare = true;
  }
  for (const std::string& warning : history->warnings) {
    outcome.warnings.push_back(study + ": " + warning);
  }
  return entry;
}

}  // namespace

std::vector<StudyDatabase> site_databases(const std::string& results_dir) {
  std::vector<StudyDatabase> databases;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(results_dir, error)) {
    if (entry.path().extension() != ".sqlite") continue;
    if (auto study = database_study(entry.path().string())) {
      databases.push_back({entry.path().string(), *study});
    }
  }
  std::sort(databases.begin(), databases.end(),
            [](const StudyDatabase& a, const StudyDatabase& b) { return a.path < b.path; });
  return databases;
}

Result<SiteOutcome> write_results_site(const SiteOptions& options,
                                       const std::vector<StudyDatabase>& databases) {
  std::set<std::string> studies;
  for (const StudyDatabase& database : databases) studies.insert(database.study);
  if (studies.empty()) {
    return Status::error("no study database under " + options.results_dir);
  }
  SiteOutcome outcome;
  std::vector<StudyEntry> entries;
  for (const std::string& study : studies) {
    // The name comes from a database's study row, which anything may have written: it
    // becomes the folder studies/<study>/ only when it is a study name, never a path.
    if (!is_study_name(study)) {
      outcome.warnings.push_back("a study database names its study '" + study +
                                 "', which is no study name (letters, digits, '-', '_', '.'): "
                                 "left out");
      continue;
    }
    auto entry = write_study_pages(options, study, outcome);
    if (!entry) {
      outcome.warnings.push_back(study + ": left out: " + entry.status().message());
      continue;
    }
    entries.push_back(std::move(*entry));
  }
  if (Status written = write_page(fs::path(options.output_dir) / "index.html",
                                  index_page(entries, options.results_dir));
      !written) {
    return written;
  }
  outcome.pages.insert(outcome.pages.begin(), "index.html");
  return outcome;
}

}  // namespace scalestudy::results
