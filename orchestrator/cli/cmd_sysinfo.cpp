// `scalestudy sysinfo`: a SYSTEM.md-style inventory of the machine it runs on.
#include <cstdio>
#include <ctime>
#include <iostream>

#include "orchestrator/campaign/study_locator.hpp"
#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/common/utc_time.hpp"
#include "orchestrator/sysinfo/markdown.hpp"
#include "orchestrator/sysinfo/system_report.hpp"

namespace scalestudy::cli {
namespace {

const char kSysinfoUsage[] =
    "usage: scalestudy sysinfo [--output FILE] [--results-dir DIR] [--data-root DIR]\n"
    "                          [--format markdown|facts] [--no-slurm]\n\n"
    "Describes this machine as Markdown: host and OS, CPU (sockets, cores, threads, NUMA),\n"
    "memory, GPUs (NVML, else nvidia-smi: models, memory, driver, NVLink/PCIe topology),\n"
    "CUDA/cuDNN/NCCL/LibTorch versions and where each was found, compilers, the filesystem\n"
    "of the results directory, network interfaces and InfiniBand ports (NCCL_SOCKET_IFNAME\n"
    "hints), and SLURM partitions and QOS limits when sinfo is available.\n\n"
    "options:\n"
    "  --output FILE      write FILE (e.g. SYSTEM.md) instead of stdout; everything under its\n"
    "                     \"## Human notes\" heading is kept\n"
    "  --results-dir DIR  the results root to measure (default: $SCALESTUDY_RESULTS_DIR,\n"
    "                     else results)\n"
    "  --data-root DIR    also measure the data set root\n"
    "  --format F         markdown (default) or facts: the key<TAB>value pairs a run records\n"
    "  --no-slurm         skip sinfo/scontrol/sacctmgr\n\n"
    "exit codes: 0 written; 2 wrong arguments; 3 FILE cannot be written.";

std::string utc_now() {
  return common::format_utc(std::time(nullptr), "%Y-%m-%d %H:%M UTC");
}

int run_sysinfo(const std::vector<std::string>& args) {
  auto parsed =
      parse_args(args, {{"--output", "--results-dir", "--data-root", "--format"}, {"--no-slurm"}});
  if (auto done = parse_error_or_help("sysinfo", parsed, kSysinfoUsage)) return *done;
  const std::string format = parsed->value_or("--format", "markdown");
  if (!parsed->positionals.empty() || (format != "markdown" && format != "facts")) {
    std::fprintf(stderr, "scalestudy sysinfo: takes no arguments; --format markdown|facts\n%s\n",
                 kSysinfoUsage);
    return kExitUsage;
  }
  sysinfo::SysinfoOptions options;
  options.results_dir = parsed->value_or("--results-dir", campaign::default_results_dir());
  options.data_root = parsed->value_or("--data-root", "");
  options.include_slurm = !parsed->has("--no-slurm");
  auto sections = sysinfo::probe_system(sysinfo::Probe::local(), options);

  if (format == "facts") {
    for (const auto& [key, value] : sysinfo::facts_of(sections)) {
      std::cout << key << '\t' << value << '\n';
    }
    return kExitOk;
  }
  if (auto output = parsed->value("--output")) {
    if (auto written = sysinfo::update_system_file(*output, sections, utc_now()); !written) {
      std::fprintf(stderr, "scalestudy sysinfo: %s\n", written.message().c_str());
      return kExitEnvironment;
    }
    std::fprintf(stderr, "wrote %s\n", output->c_str());
    return kExitOk;
  }
  std::cout << sysinfo::render_system_markdown(sections, utc_now(), "");
  return kExitOk;
}

}  // namespace

extern const Command kSysinfoCommand = {
    "sysinfo", "describe this machine (CPU, GPUs, software, SLURM) as SYSTEM.md",
    fixed_usage<kSysinfoUsage>, run_sysinfo};

}  // namespace scalestudy::cli
