// `scalestudy report STUDY`: ingest, then efficiency tables, warnings and plots.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/report_flow.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/site/results_site.hpp"

namespace scalestudy::cli {
namespace {

// `report --site DIR`: every study database under the results dir ingested (unless
// --no-ingest), then the site written.
int write_site(const std::string& site_dir, const ParsedArgs& parsed) {
  results::SiteOptions options;
  options.results_dir = parsed.value_or("--results-dir", campaign::default_results_dir());
  options.output_dir = site_dir;
  const auto databases = results::site_databases(options.results_dir);
  if (!parsed.has("--no-ingest")) {
    for (const results::StudyDatabase& database : databases) {
      if (auto ingested = results::ingest_study(database.path); !ingested) {
        std::fprintf(stderr, "scalestudy report: %s: %s\n", database.path.c_str(),
                     ingested.status().message().c_str());
        return kExitFailure;
      }
    }
  }
  auto site = results::write_results_site(options, databases);
  if (!site) {
    std::fprintf(stderr, "scalestudy report: %s\n", site.status().message().c_str());
    return kExitEnvironment;
  }
  for (const std::string& warning : site->warnings) {
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }
  std::printf("wrote %zu pages to %s (open %s/index.html)\n", site->pages.size(), site_dir.c_str(),
              site_dir.c_str());
  return kExitOk;
}

int run_report(const std::vector<std::string>& args) {
  std::set<std::string> value_options = kReportValueOptions;
  value_options.insert({"--results-dir", "--site"});
  auto parsed = parse_args(args, {value_options, kReportFlagOptions});
  if (parsed && parsed->has("--site")) {
    if (parsed->positionals.empty()) return write_site(*parsed->value("--site"), *parsed);
    std::fprintf(stderr, "scalestudy report: --site writes every study: it takes no STUDY\n");
    return kExitUsage;
  }
  if (!parsed || parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy report: %s\n",
                 parsed ? "expected one STUDY argument" : parsed.status().message().c_str());
    return kExitUsage;
  }
  return print_study_report("report", *parsed, parsed->positionals[0],
                            parsed->value_or("--results-dir", campaign::default_results_dir()));
}

const char kReportUsage[] =
    "usage: scalestudy report STUDY [--format table|md|csv|json|html] [--baseline K=V[,K=V]]\n"
    "                         [--plots DIR | --no-plots] [--html] [--comm-model SOURCE]\n"
    "                         [--input-bound-pct P] [--comm-bound-pct P] [--target-gain-pct P]\n"
    "                         [--target-acc A] [--no-ingest] [--profile] [--check] [--wide]\n"
    "                         [--project N[,N...]]\n"
    "                         [--results-dir DIR]\n"
    "       scalestudy report --site DIR [--results-dir DIR] [--no-ingest]\n\n"
    "Ingests STUDY's finished runs, then prints per point (configuration × scale, over its\n"
    "repeats) throughput median [min–max] and 95% CI (≥ 3 repeats), time/epoch, speedup and\n"
    "efficiency vs the baseline (strong: X(N)·N_base/(X(base)·N); weak: T_step(base)/T_step(N)),\n"
    "or the change vs the baseline configuration (sensitivity), validation accuracy, phase\n"
    "shares and bottleneck, GPU-hours per epoch, memory, the communication model's predicted\n"
    "vs measured efficiency (when an all-reduce run was measured), and warnings. A study of\n"
    "all-reduce runs (scalestudy-allreduce) reports its bus bandwidth per message size.\n\n"
    "  --site DIR       instead of one study: a static site of the whole results dir in DIR\n"
    "                   (index.html: every study with its newest efficiency, its trend and\n"
    "                   any open regression; each study's report, history and compare pages),\n"
    "                   read from the file system with no server\n"
    "  --format         table (default), md, csv, json (docs/report-json.md) or html\n"
    "  --baseline       reference point, e.g. world_size=2 or precision=fp32\n"
    "  --plots DIR      where SVG/PNG plots go (default <results-dir>/<study>/report)\n"
    "  --html           also write DIR/report.html, one self-contained page\n"
    "  --comm-model     model communication with the all-reduce runs of SOURCE instead of the\n"
    "                   study's own: a study (name, YAML or database, e.g. the ingested\n"
    "                   studies/allreduce-sweep.yaml) or one all-reduce run's rank0.sqlite\n"
    "  --input-bound-pct, --comm-bound-pct  bottleneck thresholds (default 5, 20)\n"
    "  --target-gain-pct  sensitivity target; --target-acc  accuracy for time-to-accuracy\n"
    "  --profile        also print the GPU-time breakdown of the study's profiled runs\n"
    "  --project N,...  project step time and efficiency to these world sizes with the ring\n"
    "                   all-reduce model (docs/projection.md): a table, and a dashed line in\n"
    "                   the efficiency plot; needs an all-reduce curve (or --comm-model)\n"
    "  --check          exit 1 when a point misses a threshold of the study's\n"
    "                   report.thresholds (efficiency_pct: efficiency below it)\n"
    "  --wide           every column and every row in the terminal tables (by default\n"
    "                   they fit 120 columns: batches, min–max, phase shares and\n"
    "                   calibration figures are left out; and tables of ranks or hosts show\n"
    "                   past 16 the spread and the outliers, docs/report-json.md; md does\n"
    "                   too; csv, json and html always carry every column and row)\n\n"
    "exit: 0 ok; 1 some runs failed, or --check and a threshold missed; 2 usage;\n"
    "3 no study database";

}  // namespace

extern const Command kReportCommand = {
    "report", "efficiency tables, bottlenecks, memory and plots of a study",
    fixed_usage<kReportUsage>, run_report};

}  // namespace scalestudy::cli
