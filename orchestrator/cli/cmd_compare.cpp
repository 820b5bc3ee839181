// `scalestudy compare A B`: two studies (or one study at two git commits) point by point,
// with significance over repeats and a verdict; exit 1 on a regression, for CI gates.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/results/compare_render.hpp"
#include "orchestrator/results/ingest.hpp"

namespace scalestudy::cli {
namespace {

const char kUsage[] =
    "usage: scalestudy compare A B [--threshold-pct P] [--format table|md|csv|json|html]\n"
    "                          [--no-ingest] [--results-dir DIR]\n\n"
    "Compares study B with study A (each a study name, YAML or database; STUDY@COMMIT takes\n"
    "only the runs whose provenance records a git commit starting with COMMIT, so one study\n"
    "run at two commits compares with itself). Per point measured in both (configuration,\n"
    "ranks, nodes): mean throughput of each, the ratio B/A with its 95% CI, Welch's t over\n"
    "the repeats, the efficiency of each, and a verdict: faster or slower (significant at 5%\n"
    "and beyond the threshold), no significant change, or cannot judge (fewer than 2 repeats\n"
    "on a side; the repeats needed are named). Beside each verdict, what differs between the\n"
    "two sides' runs, most likely cause first: build (binary build id, git commit), library\n"
    "and driver versions, parameters, environment (NCCL_* and the like), runtime choices,\n"
    "hosts.\n\n"
    "  --threshold-pct P  smallest change that counts (default 5)\n\n"
    "exit: 0 no regression; 1 some point is significantly slower beyond the threshold;\n"
    "2 usage; 3 a study database is missing";

struct StudySide {
  std::string study;
  std::string git_commit;
};

// "name@abc123" → the study and a commit prefix; a path may hold '@' before its last '/'.
StudySide split_side(const std::string& text) {
  const auto at = text.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == text.size() ||
      text.find('/', at) != std::string::npos) {
    return {text, ""};
  }
  return {text.substr(0, at), text.substr(at + 1)};
}

// One side of the comparison: its report and what its measured runs recorded.
struct ComparedStudy {
  results::Report report;
  std::map<std::string, results::ProvenanceValues> provenance;  // by run id
};

Result<ComparedStudy> load_side(const std::string& text, const std::string& results_dir,
                                bool ingest, bool& missing) {
  const StudySide side = split_side(text);
  auto database = campaign::locate_study_database(side.study, results_dir);
  if (!database) {
    missing = true;
    return database.status();
  }
  if (ingest) {
    auto ingested = results::ingest_study(*database);
    if (!ingested) return ingested.status().with_context(text);
  }
  auto db = sqlite::Database::open(*database, sqlite::OpenMode::kReadOnly);
  if (!db) return db.status();
  results::ReportOptions options;
  options.git_commit = side.git_commit;
  auto report = results::build_report(*db, options);
  if (!report) return report.status().with_context(text);
  std::vector<std::string> run_ids;
  for (const auto& point : report->points) {
    run_ids.insert(run_ids.end(), point.run_ids.begin(), point.run_ids.end());
  }
  auto provenance = results::load_run_provenance(*db, run_ids);
  if (!provenance) return provenance.status().with_context(text);
  return ComparedStudy{std::move(*report), std::move(*provenance)};
}

int run_compare(const std::vector<std::string>& args) {
  auto parsed =
      parse_args(args, {{"--threshold-pct", "--format", "--results-dir"}, {"--no-ingest"}});
  if (!parsed || parsed->positionals.size() != 2) {
    std::fprintf(stderr, "scalestudy compare: %s\n%s\n",
                 parsed ? "expected two studies A and B" : parsed.status().message().c_str(),
                 kUsage);
    return kExitUsage;
  }
  auto format = results::parse_report_format(parsed->value_or("--format", "table"));
  double threshold_pct = results::kDefaultCompareThresholdPct;
  if (auto text = parsed->value("--threshold-pct")) {
    size_t used = 0;
    try {
      threshold_pct = std::stod(*text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text->size() || threshold_pct < 0) {
      std::fprintf(stderr, "scalestudy compare: --threshold-pct takes a number ≥ 0, got '%s'\n",
                   text->c_str());
      return kExitUsage;
    }
  }
  if (!format) {
    std::fprintf(stderr, "scalestudy compare: %s\n", format.status().message().c_str());
    return kExitUsage;
  }
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  ComparedStudy studies[2];
  for (int side = 0; side < 2; ++side) {
    bool missing = false;
    auto report =
        load_side(parsed->positionals[side], results_dir, !parsed->has("--no-ingest"), missing);
    if (!report) {
      std::fprintf(stderr, "scalestudy compare: %s\n", report.status().message().c_str());
      return missing ? kExitEnvironment : kExitFailure;
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
    fixed_usage<kUsage>, run_compare};

}  // namespace scalestudy::cli
