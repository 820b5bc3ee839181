// `scalestudy history STUDY`: the study measured again and again (campaigns, `submit
// --campaign`), each point's series with its change points, and a CI gate (--check).
#include <cstdio>
#include <iostream>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/history/history_render.hpp"
#include "orchestrator/results/ingest/ingest.hpp"

namespace scalestudy::cli {
namespace {

const char kHistoryUsage[] =
    "usage: scalestudy history STUDY [--metric throughput|efficiency|time_to_target]\n"
    "                          [--point TEXT] [--since YYYY-MM-DD] [--check]\n"
    "                          [--threshold-pct P] [--format table|md|csv|json|html]\n"
    "                          [--window N] [--max-pvalue P] [--no-ingest] [--results-dir DIR]\n\n"
    "Every campaign of the study (its default one and each `submit --campaign NAME`), oldest\n"
    "first, and per point (configuration, ranks, nodes, system) the series of one metric:\n"
    "campaign, date, the runs' git commit, the value (mean over repeats, with its 95% CI) and\n"
    "the change points found in the series, by E-Divisive means with Student's t as\n"
    "Hunter/Apache Otava find them (docs/history.md): where, by how much, with what p, and\n"
    "what differs in the runs' provenance across it. A series never mixes systems.\n\n"
    "  --metric M         throughput (default), efficiency or time_to_target\n"
    "  --point TEXT       only points whose label (\"default N=2 nodes=1\") holds TEXT\n"
    "  --since DATE       only campaigns made on or after DATE\n"
    "  --check            exit 1 when some point's newest campaign lies in a segment slower\n"
    "                     than the one before by more than the threshold: an open regression\n"
    "  --threshold-pct P  that threshold (default: the study's report.thresholds.regression_pct,\n"
    "                     else 5)\n"
    "  --window N         points per window of the detector's split pass (default 12)\n"
    "  --max-pvalue P     a change point's significance (default 0.001)\n"
    "  --no-ingest        read the study databases as they are\n\n"
    "exit: 0 shown (and, with --check, no open regression); 1 an open regression with\n"
    "--check, or a database cannot be read; 2 usage; 3 no campaign of the study";

constexpr double kDefaultRegressionPct = 5;

int run_history(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--metric", "--point", "--since", "--threshold-pct", "--format",
                                   "--window", "--max-pvalue", "--results-dir"},
                                  {"--check", "--no-ingest"}});
  if (!parsed || parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy history: %s\n%s\n",
                 parsed ? "expected one STUDY" : parsed.status().message().c_str(), kHistoryUsage);
    return kExitUsage;
  }
  auto fail_usage = [](const std::string& message) {
    std::fprintf(stderr, "scalestudy history: %s\n", message.c_str());
    return kExitUsage;
  };
  results::HistoryOptions options;
  auto metric = results::parse_history_metric(parsed->value_or("--metric", "throughput"));
  if (!metric) return fail_usage(metric.status().message());
  options.metric = *metric;
  auto format = results::parse_history_format(parsed->value_or("--format", "table"));
  if (!format) return fail_usage(format.status().message());
  options.point = parsed->value_or("--point", "");
  const auto threshold = parsed->number_value("--threshold-pct");
  const auto window = parsed->number_value("--window");
  const auto max_pvalue = parsed->number_value("--max-pvalue");
  for (const auto* given : {&threshold, &window, &max_pvalue}) {
    if (!*given) return fail_usage(given->status().message());
  }
  if ((*threshold && **threshold < 0) ||
      (*window && (**window < 2 || **window != static_cast<int>(**window))) ||
      (*max_pvalue && (**max_pvalue <= 0 || **max_pvalue >= 1))) {
    return fail_usage(
        "--threshold-pct takes a number >= 0, --window a whole number >= 2, "
        "--max-pvalue a number between 0 and 1");
  }
  if (*window) options.detector.window_len = static_cast<int>(**window);
  if (*max_pvalue) options.detector.max_pvalue = **max_pvalue;

  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  const std::string& study = parsed->positionals[0];
  const auto campaigns =
      results::study_campaigns(results_dir, study, parsed->value_or("--since", ""));
  if (campaigns.empty()) {
    std::fprintf(stderr,
                 "scalestudy history: no campaign of study '%s' under %s (submit it first, or "
                 "pass --results-dir)\n",
                 study.c_str(), results_dir.c_str());
    return kExitEnvironment;
  }
  if (!parsed->has("--no-ingest")) {
    for (const results::CampaignInfo& found : campaigns) {
      if (auto ingested = results::ingest_study(found.database_path); !ingested) {
        std::fprintf(stderr, "scalestudy history: %s: %s\n", found.database_path.c_str(),
                     ingested.status().message().c_str());
        return kExitFailure;
      }
    }
  }
  auto history = results::load_study_history(campaigns, study, options);
  if (!history) {
    std::fprintf(stderr, "scalestudy history: %s\n", history.status().message().c_str());
    return kExitFailure;
  }
  const double threshold_pct =
      threshold->value_or(history->regression_pct.value_or(kDefaultRegressionPct));
  const auto open = results::open_regressions(*history, threshold_pct);
  std::cout << results::render_history(*history, *format, open, threshold_pct);
  for (const std::string& warning : history->warnings) {
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }
  return parsed->has("--check") && !open.empty() ? kExitFailure : kExitOk;
}

}  // namespace

extern const Command kHistoryCommand = {
    "history", "a study's campaigns: each point's series, change points, a regression gate",
    fixed_usage<kHistoryUsage>, run_history};

}  // namespace scalestudy::cli
