// `scalestudy profile-report STUDY`: ingest profiled runs' output and print the breakdown.
#include <cstdio>
#include <iostream>

#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/open_study.hpp"
#include "orchestrator/profiling/breakdown_report.hpp"
#include "orchestrator/profiling/profile_ingest.hpp"
#include "orchestrator/profiling/profile_store.hpp"

namespace scalestudy::cli {
namespace {

const char kProfileReportUsage[] =
    "usage: scalestudy profile-report STUDY [--run ID] [--no-ingest] [--results-dir DIR]\n\n"
    "Reads the profiler output in every profiled run's folder into the study database\n"
    "(tables p_kernels, p_nvtx; again on every call, replacing what was there) and prints,\n"
    "per run, GPU time per kernel category (convolution, GEMM, batch norm, elementwise,\n"
    "NCCL, memcpy, other) with a bar plot, and the NVTX range times. Recognised files:\n"
    "nsys stats CSV (*_cuda_gpu_kern_sum.csv, *_cuda_gpu_mem_time_sum.csv, *_nvtx_sum.csv),\n"
    "nsys SQLite exports (nsys-*.sqlite), ncu CSV (ncu-*.csv) and NVTX traces (trace-*.json);\n"
    "docs/profiling.md says how to make them. STUDY is the study YAML or its name.\n\n"
    "options:\n"
    "  --run ID           only this profiled run\n"
    "  --no-ingest        print what the database holds; read no files\n"
    "  --results-dir DIR  results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n\n"
    "exit codes: 0 printed; 1 no such study or an unreadable profile; 2 wrong arguments.";

int run_profile_report(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--run", "--results-dir"}, {"--no-ingest"}});
  if (auto done = parse_error_or_help("profile-report", parsed, kProfileReportUsage)) return *done;
  if (parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy profile-report: expected one STUDY\n%s\n",
                 kProfileReportUsage);
    return kExitUsage;
  }
  auto opened = open_study_or_explain("profile-report", *parsed);
  if (!opened) return kExitFailure;
  campaign::StudyState& state = opened->state;
  sqlite::Database& db = state.database();
  const std::string only_run = parsed->value_or("--run", "");
  if (!parsed->has("--no-ingest")) {
    if (Status ingested = profiling::ingest_profiled_runs(db, only_run); !ingested) {
      std::fprintf(stderr, "scalestudy profile-report: %s\n", ingested.message().c_str());
      return kExitFailure;
    }
  }
  auto profiles = profiling::load_profiles(db, only_run);
  if (!profiles) {
    std::fprintf(stderr, "scalestudy profile-report: %s\n", profiles.status().message().c_str());
    return kExitFailure;
  }
  std::cout << profiling::render_profile_breakdown(*profiles);
  return kExitOk;
}

}  // namespace

extern const Command kProfileReportCommand = {
    "profile-report", "ingest profiled runs and print the kernel and NVTX breakdown",
    fixed_usage<kProfileReportUsage>, run_profile_report};

}  // namespace scalestudy::cli
