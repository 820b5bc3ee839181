// Helpers shared by the suites that drive the scalestudy CLI (campaign, sched/slurm): the CLI
// binary, a scratch directory, a fake workload that records each execution, running commands,
// and finding the processes a test left behind.
#pragma once

#include <sys/types.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "orchestrator/common/process_runner.hpp"

namespace scalestudy::testing {

inline std::string binary_dir() {
  const char* dir = std::getenv("SCALESTUDY_BINARY_DIR");
  return std::string(dir != nullptr ? dir : ".") + "/bin";
}

// The source tree (CTest's SCALESTUDY_SOURCE_DIR), else the working directory.
inline std::string source_dir() {
  const char* dir = std::getenv("SCALESTUDY_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("scalestudy_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A workload that appends "<rank> <job id>" to <out-dir>/executions.txt, sleeps --sleep-s
// seconds and exits 3 when --fail is 1; with --ignore-term 1 it ignores SIGTERM (so only a
// time limit's SIGKILL stops it). A signal that ends its sleep ends it with the same status
// (as a program killed by it: the shell itself may not be signalled before it would exit
// 0). Flags as scalestudy passes them.
inline std::string write_fake_workload(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "fake_workload.sh";
  std::ofstream(path) << R"sh(#!/bin/sh
out=""; sleep_s=0; fail=0; ignore_term=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out-dir) out=$2; shift ;;
    --sleep-s) sleep_s=$2; shift ;;
    --fail) fail=$2; shift ;;
    --ignore-term) ignore_term=$2; shift ;;
  esac
  shift
done
[ "$ignore_term" = 1 ] && trap '' TERM
echo "${RANK:-${SLURM_PROCID:-0}} ${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-local}}" >> "$out/executions.txt"
sleep "$sleep_s" || exit $?
[ "$fail" = 1 ] && exit 3
exit 0
)sh";
  std::filesystem::permissions(path, std::filesystem::perms::all);
  return path.string();
}

// A workload that describes its flags (--describe-flags json): one, --epochs, a whole
// number ≥ 1, so a study giving it `epochs: 0` has invalid parameters.
inline std::string write_describing_workload(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "describing_workload.sh";
  std::ofstream(path) << R"sh(#!/bin/sh
[ "$1" = --describe-flags ] || exit 0
echo '{"workload": "w", "flags": [{"name": "epochs", "type": "integer", "default": "1", "min": 1}]}'
)sh";
  std::filesystem::permissions(path, std::filesystem::perms::all);
  return path.string();
}

// An unmodified DDP rendezvous: init_process_group() from the torchrun variables (env://),
// one all-reduce, and a line "rank R of W local L sum S" (S = W(W+1)/2 when every rank took
// part). Runs with Debian's python3-torch, /usr/bin/python3.
inline std::string write_rendezvous_script(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "rendezvous.py";
  std::ofstream(path) << R"py(import os
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
total = torch.tensor([dist.get_rank() + 1.0])
dist.all_reduce(total)
print("rank %d of %d local %s sum %d" % (dist.get_rank(), dist.get_world_size(),
                                         os.environ["LOCAL_RANK"], int(total.item())), flush=True)
dist.destroy_process_group()
)py";
  std::filesystem::permissions(path, std::filesystem::perms::all);
  return path.string();
}

// A workload that marks each start and each end of a rank ($SLURM_JOB_ID, a line each) in
// <out-dir>/starts and <out-dir>/ends, sleeping --sleep-s seconds between the two.
inline std::string write_marking_workload(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "marking_workload.sh";
  std::ofstream(path) << "#!/bin/sh\nout=\"\"; sleep_s=0; prev=\"\"\nfor arg in \"$@\"; do\n"
                         "  [ \"$prev\" = --out-dir ] && out=$arg\n"
                         "  [ \"$prev\" = --sleep-s ] && sleep_s=$arg\n  prev=$arg\ndone\n"
                         "echo \"$SLURM_JOB_ID\" >> \"$out/starts\"\nsleep \"$sleep_s\"\n"
                         "echo \"$SLURM_JOB_ID\" >> \"$out/ends\"\n";
  std::filesystem::permissions(path, std::filesystem::perms::all);
  return path.string();
}

inline std::string read_file(const std::string& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

// Processes, not zombies, whose command line mentions `text` (e.g. a test's directory).
inline std::vector<pid_t> processes_mentioning(const std::string& text) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string command_line = read_file(entry.path().string() + "/cmdline");
    std::ifstream stat(entry.path().string() + "/stat");
    std::string pid_field, command, state;
    if (!(stat >> pid_field >> command >> state) || state == "Z") continue;
    if (command_line.find(text) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

inline int count_lines(const std::string& path) {
  std::ifstream file(path);
  int lines = 0;
  for (std::string line; std::getline(file, line);) ++lines;
  return lines;
}

// `scalestudy ARGS...` with `environment` added to ours (e.g. SCALESTUDY_FAULT).
inline common::ProcessResult run_cli_with(std::vector<std::string> args,
                                          std::map<std::string, std::string> environment,
                                          int timeout_ms = 120'000) {
  args.insert(args.begin(), binary_dir() + "/scalestudy");
  auto result = common::run_process({args, std::move(environment), timeout_ms});
  return result ? *result : common::ProcessResult{};
}

inline common::ProcessResult run_cli(std::vector<std::string> args, int timeout_ms = 120'000) {
  return run_cli_with(std::move(args), {}, timeout_ms);
}

}  // namespace scalestudy::testing
