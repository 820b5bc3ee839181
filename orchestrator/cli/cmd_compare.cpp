// `scalestudy compare A B`: two studies (or one study at two git commits) point by point,
// with significance over repeats and a verdict; exit 1 on a regression, for CI gates.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/compare/compare_render.hpp"
#include "orchestrator/results/compare/compared_study.hpp"

namespace scalestudy::cli {
namespace {

const char kCompareUsage[] =
    "usage: scalestudy compare A B [--threshold-pct P] [--format table|md|csv|json|html]\n"
    "                          [--no-ingest] [--results-dir DIR]\n\n"
    "Compares study B with study A (each a study name, YAML or database; STUDY@CAMPAIGN\n"
    "takes a campaign of the study (`submit --campaign`); STUDY@SYSTEM takes\n"
    "the runs of one of the study's systems, so one study on two systems compares with\n"
    "itself; STUDY@COMMIT takes only the runs whose provenance records a git commit starting\n"
    "with COMMIT, so one study run at two commits does too). Per point measured in both\n"
    "(configuration, ranks, nodes): mean throughput of each, the ratio B/A with its 95% CI,\n"
    "Welch's t over the repeats, the efficiency of each, and a verdict: faster or slower\n"
    "(significant at 5% and beyond the threshold), no significant change, or cannot judge\n"
    "(fewer than 2 repeats on a side; the repeats needed are named). Beside each verdict,\n"
    "what differs between the two sides' runs, most likely cause first: build (binary build\n"
    "id, git commit), library and driver versions, parameters, environment (NCCL_* and the\n"
    "like), runtime choices, hosts.\n\n"
    "  --threshold-pct P  smallest change that counts (default 5)\n\n"
    "exit: 0 no regression; 1 some point is significantly slower beyond the threshold;\n"
    "2 usage; 3 a study database is missing";

int run_compare(const std::vector<std::string>& args) {
  auto parsed =
      parse_args(args, {{"--threshold-pct", "--format", "--results-dir"}, {"--no-ingest"}});
  if (!parsed || parsed->positionals.size() != 2) {
    std::fprintf(stderr, "scalestudy compare: %s\n%s\n",
                 parsed ? "expected two studies A and B" : parsed.status().message().c_str(),
                 kCompareUsage);
    return kExitUsage;
  }
  auto format = results::parse_report_format(parsed->value_or("--format", "table"));
  const auto threshold = parsed->number_value("--threshold-pct");
  if (!threshold || (*threshold && **threshold < 0)) {
    std::fprintf(stderr,
                 "scalestudy compare: --threshold-pct takes a finite number ≥ 0, got '%s'\n",
                 parsed->value_or("--threshold-pct", "").c_str());
    return kExitUsage;
  }
  const double threshold_pct = threshold->value_or(results::kDefaultCompareThresholdPct);
  if (!format) {
    std::fprintf(stderr, "scalestudy compare: %s\n", format.status().message().c_str());
    return kExitUsage;
  }
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  results::ComparedStudy studies[2];
  for (int side = 0; side < 2; ++side) {
    const std::string& text = parsed->positionals[side];
    auto selected = campaign::locate_study_selection(text, results_dir);
    auto report = selected ? results::load_compared_study(selected->database, selected->suffix,
                                                          !parsed->has("--no-ingest"), text)
                           : Result<results::ComparedStudy>(selected.status());
    if (!report) {
      std::fprintf(stderr, "scalestudy compare: %s\n", report.status().message().c_str());
      return selected ? kExitFailure : kExitEnvironment;
    }
    studies[side] = std::move(*report);
  }
  results::Comparison comparison =
      results::compare_reports(studies[0].report, studies[1].report, parsed->positionals[0],
                               parsed->positionals[1], threshold_pct);
  results::explain_differences(comparison, studies[0].provenance, studies[1].provenance);
  std::fputs(results::render_comparison(comparison, *format).c_str(), stdout);
  return comparison.regressed() ? kExitFailure : kExitOk;
}

}  // namespace

extern const Command kCompareCommand = {
    "compare", "compare two studies point by point; exit 1 on a significant regression",
    fixed_usage<kCompareUsage>, run_compare};

}  // namespace scalestudy::cli
