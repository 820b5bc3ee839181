// `scalestudy submit STUDY.yaml`: submit every run of a study that is not done yet.
#include <cstdio>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/cli/submit_flow.hpp"

namespace scalestudy::cli {
namespace {

const char kUsage[] =
    "usage: scalestudy submit STUDY.yaml [--scheduler local|slurm|slurmrest]\n"
    "                         [--results-dir DIR] [--max-parallel N] [--max-slots N]\n"
    "                         [--no-arrays] [--ordered] [--hold] [--dry-run]\n"
    "                         [--max-gpu-hours H]\n\n"
    "Submits every run of the study that is not done: never-submitted runs, and runs that\n"
    "ended FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY or CANCELLED while attempts\n"
    "remain (the study's max_attempts). Completed runs are skipped, pending and running ones\n"
    "left alone, so submit can be repeated after any failure; two submits at once never\n"
    "submit a run twice. State lives in DIR/<study>.sqlite; run output in\n"
    "DIR/<study>/runs/<run_id>/.\n\n"
    "The local scheduler has no daemon: it runs the runs itself, in this process, and returns\n"
    "when they have finished (Ctrl-C leaves running ranks behind; `scalestudy cancel` stops\n"
    "them).\n\n"
    "options:\n"
    "  --scheduler S     local, slurm or slurmrest (default: slurmrest if\n"
    "                    $SCALESTUDY_SLURMRESTD is set, else slurm if sbatch is on PATH and\n"
    "                    squeue answers, else local)\n"
    "  --results-dir DIR results root (default: $SCALESTUDY_RESULTS_DIR, else results)\n"
    "  --max-parallel N  local: runs at once (default 1)\n"
    "  --max-slots N     local: ranks at once (default: hardware threads)\n"
    "  --no-arrays       slurm: one job per run instead of job arrays for same-shape runs\n"
    "  --ordered         slurm: each job waits for the previous one (--dependency=afterany)\n"
    "  --hold            slurm: submit held (release with scontrol release)\n"
    "  --dry-run         write the job scripts and list what would be submitted; submit nothing\n"
    "  --max-gpu-hours H refuse, before submitting anything, a study whose runs request more\n"
    "                    than H GPU-hours (time limit × nodes × GPUs); the study's\n"
    "                    budget: {gpu_hours: H} does the same\n\n"
    "exit codes: 0 submitted (or nothing to do); 1 the study is invalid, over budget, or some\n"
    "runs could not be submitted; 2 wrong arguments; 3 the scheduler is unavailable.";

int run_submit(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {kSubmitValueOptions, kSubmitFlagOptions});
  if (!parsed) {
    std::fprintf(stderr, "scalestudy submit: %s\n%s\n", parsed.status().message().c_str(), kUsage);
    return kExitUsage;
  }
  if (parsed->positionals.size() != 1) {
    std::fprintf(stderr, "scalestudy submit: expected one STUDY.yaml\n%s\n", kUsage);
    return kExitUsage;
  }
  const std::string results_dir =
      parsed->value_or("--results-dir", campaign::default_results_dir());
  auto location = campaign::locate_study(parsed->positionals[0], results_dir);
  if (!location || !location->study) {
    std::fprintf(stderr, "%s\n",
                 location ? "scalestudy submit: STUDY must be a study YAML file"
                          : location.status().message().c_str());
    return location ? kExitUsage : kExitFailure;
  }
  int exit_code = kExitOk;
  auto session = make_submit_session("submit", *parsed, *location->study, results_dir, exit_code);
  return session ? submit_and_print("submit", *session) : exit_code;
}

}  // namespace

extern const Command kSubmitCommand = {"submit", "submit every run of a study that is not done",
                                       kUsage, run_submit};

}  // namespace scalestudy::cli
