// scalestudy-launch: a torchrun-style launcher without Python.
//   scalestudy-launch --nproc-per-node K [--nnodes N] [--node-rank R] [--master-addr A]
//                     [--master-port P] [--grace-s S] [--rank-log-dir D]
//                     [--hang-after-s S] [--py-spy PATH] -- BINARY ARGS...
// starts K local ranks with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR
// and MASTER_PORT set, supervised by run_children(). Defaults come from SLURM (SLURM_NNODES,
// SLURM_NODEID, the first host of SLURM_JOB_NODELIST, a port derived from SLURM_JOB_ID);
// a single-node launch outside SLURM picks a free port, so concurrent launches never meet.
//   scalestudy-launch --srun-task [--rank-log-dir D] -- BINARY ARGS...
// is one task of an srun step: it sets the same variables from the task's SLURM_* ones and
// execs BINARY in its place, so an unmodified init_process_group() script works under srun.
// With --rank-log-dir each rank's stdout and stderr go to D/rank<RANK>.log, and a hang
// watchdog runs: when no rank's log or database in D changed for --hang-after-s S (0: no
// watchdog; by default the larger of 10 minutes and 20 x the median step time seen,
// progress_watch.hpp), the ranks' stacks are written to D/stacks/ and the ranks stopped
// (exit 124; child_processes.hpp); --py-spy names the py-spy to dump Python ranks with
// (else one on PATH or beside the rank's Python; stack_dump.hpp).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "harness/core/run_layout.hpp"
#include "harness/dist/rank_discovery.hpp"
#include "workloads/launch/child_processes.hpp"

namespace {

using scalestudy::Result;
using scalestudy::Status;

struct LaunchArgs {
  int nproc_per_node = 0;
  int nnodes = 0;
  int node_rank = -1;
  std::string master_addr;
  int master_port = 0;
  double grace_s = 10;
  double hang_after_s = -1;  // --hang-after-s: the watchdog's limit; 0: off; < 0: the default
  bool srun_task = false;
  std::string rank_log_dir;
  std::string py_spy;
  std::vector<std::string> command;
};

const char* kUsage =
    "usage: scalestudy-launch --nproc-per-node K [--nnodes N] [--node-rank R]\n"
    "         [--master-addr A] [--master-port P] [--grace-s S] [--rank-log-dir D]\n"
    "         [--hang-after-s S] [--py-spy PATH] -- BINARY ARGS...\n"
    "   or: scalestudy-launch --srun-task [--rank-log-dir D] -- BINARY ARGS...\n";

Result<LaunchArgs> parse(int argc, char** argv) {
  LaunchArgs args;
  int i = 1;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    std::string name = argv[i];
    if (name == "--srun-task") {
      args.srun_task = true;
      continue;
    }
    if (i + 1 >= argc) return Status::error("flag " + name + " needs a value");
    std::string value = argv[++i];
    char* end = nullptr;
    double number = std::strtod(value.c_str(), &end);
    bool numeric = !value.empty() && *end == '\0';
    if (name == "--master-addr" || name == "--rank-log-dir" || name == "--py-spy") {
      (name == "--master-addr"    ? args.master_addr
       : name == "--rank-log-dir" ? args.rank_log_dir
                                  : args.py_spy) = value;
      continue;
    }
    if (!numeric) return Status::error("flag " + name + ": '" + value + "' is not a number");
    if (name == "--nproc-per-node") {
      args.nproc_per_node = static_cast<int>(number);
    } else if (name == "--nnodes") {
      args.nnodes = static_cast<int>(number);
    } else if (name == "--node-rank") {
      args.node_rank = static_cast<int>(number);
    } else if (name == "--master-port") {
      args.master_port = static_cast<int>(number);
    } else if (name == "--grace-s") {
      args.grace_s = number;
    } else if (name == "--hang-after-s") {
      args.hang_after_s = number;
    } else {
      return Status::error("unknown flag " + name);
    }
  }
  for (++i; i < argc; ++i) args.command.push_back(argv[i]);
  if (args.command.empty()) return Status::error("no command after --");
  if (!args.srun_task && args.nproc_per_node < 1)
    return Status::error("--nproc-per-node must be >= 1");
  return args;
}

int environment_int(const scalestudy::dist::Environment& environment, const char* name,
                    int fallback) {
  auto found = environment.find(name);
  return found == environment.end() ? fallback : std::atoi(found->second.c_str());
}

// A port the kernel reports free right now on the loopback interface.
Result<int> free_local_port() {
  int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
  if (socket_fd < 0) return Status::error("cannot open a socket to find a free port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(socket_fd);
  if (port == 0) return Status::error("cannot find a free local port");
  return port;
}

// Fills what the flags left open from SLURM, the environment, or local defaults.
Status resolve_defaults(LaunchArgs& args, const scalestudy::dist::Environment& environment) {
  if (args.nnodes <= 0) args.nnodes = environment_int(environment, "SLURM_NNODES", 1);
  if (args.node_rank < 0) args.node_rank = environment_int(environment, "SLURM_NODEID", 0);
  if (args.node_rank >= args.nnodes) {
    return Status::error("--node-rank " + std::to_string(args.node_rank) + " outside " +
                         std::to_string(args.nnodes) + " nodes");
  }
  // Discovery without RANK / SLURM_PROCID resolves only the master address and port.
  scalestudy::dist::Environment master_only;
  for (const char* name : {"MASTER_ADDR", "MASTER_PORT", "SLURM_JOB_ID", "SLURM_JOB_NODELIST"}) {
    auto found = environment.find(name);
    if (found != environment.end()) master_only[name] = found->second;
  }
  auto discovered = scalestudy::dist::discover_ranks(master_only);
  if (!discovered) return discovered.status();
  if (args.master_addr.empty()) args.master_addr = discovered->master_addr;
  if (args.master_port > 0) return Status::ok();
  bool port_known = master_only.count("MASTER_PORT") || master_only.count("SLURM_JOB_ID");
  if (port_known || args.nnodes > 1) {
    args.master_port = discovered->master_port;
    return Status::ok();
  }
  auto port = free_local_port();
  if (!port) return port.status();
  args.master_port = *port;
  return Status::ok();
}

std::string rank_log_path(const LaunchArgs& args, int rank) {
  if (args.rank_log_dir.empty()) return "";
  return scalestudy::run_layout::rank_log_path(args.rank_log_dir, rank);
}

// --srun-task: exports this srun task's torchrun variables and execs the command.
int exec_srun_task(const LaunchArgs& args, const scalestudy::dist::Environment& environment) {
  auto ranks = scalestudy::dist::discover_ranks(environment);
  if (!ranks) {
    std::cerr << "scalestudy-launch: " << ranks.status().message() << "\n";
    return 2;
  }
  const std::map<std::string, std::string> variables = {
      {"RANK", std::to_string(ranks->rank)},
      {"WORLD_SIZE", std::to_string(ranks->world_size)},
      {"LOCAL_RANK", std::to_string(ranks->local_rank)},
      {"LOCAL_WORLD_SIZE", std::to_string(ranks->local_world_size)},
      {"MASTER_ADDR", ranks->master_addr},
      {"MASTER_PORT", std::to_string(ranks->master_port)},
  };
  for (const auto& [name, value] : variables) setenv(name.c_str(), value.c_str(), 1);
  if (std::string log_path = rank_log_path(args, ranks->rank); !log_path.empty()) {
    int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      std::cerr << "scalestudy-launch: cannot open " << log_path << ": " << std::strerror(errno)
                << "\n";
      return 2;
    }
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
  }
  std::vector<char*> command;
  for (const std::string& word : args.command) command.push_back(const_cast<char*>(word.c_str()));
  command.push_back(nullptr);
  execvp(command[0], command.data());
  std::cerr << "scalestudy-launch: cannot run " << command[0] << ": " << std::strerror(errno)
            << "\n";
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = parse(argc, argv);
  if (!args) {
    std::cerr << "scalestudy-launch: " << args.status().message() << "\n" << kUsage;
    return 2;
  }
  scalestudy::dist::Environment environment = scalestudy::dist::process_environment();
  if (args->srun_task) return exec_srun_task(*args, environment);
  if (Status resolved = resolve_defaults(*args, environment); !resolved) {
    std::cerr << "scalestudy-launch: " << resolved.message() << "\n";
    return 2;
  }
  std::string launch_id = std::to_string(static_cast<long long>(time(nullptr))) + "-" +
                          std::to_string(static_cast<long long>(getpid()));
  std::vector<scalestudy::launch::ChildSpec> children;
  for (int local_rank = 0; local_rank < args->nproc_per_node; ++local_rank) {
    scalestudy::launch::ChildSpec child;
    child.argv = args->command;
    child.env = {
        {"RANK", std::to_string(args->node_rank * args->nproc_per_node + local_rank)},
        {"WORLD_SIZE", std::to_string(args->nnodes * args->nproc_per_node)},
        {"LOCAL_RANK", std::to_string(local_rank)},
        {"LOCAL_WORLD_SIZE", std::to_string(args->nproc_per_node)},
        {"GROUP_RANK", std::to_string(args->node_rank)},
        {"MASTER_ADDR", args->master_addr},
        {"MASTER_PORT", std::to_string(args->master_port)},
    };
    // Ranks on several nodes cannot share a launcher's id; they fall back to the job id.
    if (args->nnodes == 1 && !environment.count("SCALESTUDY_LAUNCH_ID")) {
      child.env["SCALESTUDY_LAUNCH_ID"] = launch_id;
    }
    child.log_path = rank_log_path(*args, args->node_rank * args->nproc_per_node + local_rank);
    children.push_back(std::move(child));
  }
  auto grace = std::chrono::milliseconds(static_cast<int64_t>(args->grace_s * 1000));
  scalestudy::launch::HangWatch hang;
  if (args->hang_after_s != 0 && !args->rank_log_dir.empty()) {
    hang.on = true;
    hang.after = std::chrono::milliseconds(
        static_cast<int64_t>(std::max(0.0, args->hang_after_s) * 1000));  // 0: the default rule
    hang.stacks_dir = args->rank_log_dir + "/stacks";
    hang.rank_dir = args->rank_log_dir;
    hang.py_spy = args->py_spy;
    // PyTorch's NCCL flight recorder: a collective that times out dumps what every rank
    // had in flight beside the stacks (settings the job chose itself are kept).
    const std::map<std::string, std::string> recorder = {
        {"TORCH_NCCL_TRACE_BUFFER_SIZE", "2000"},
        {"TORCH_NCCL_DUMP_ON_TIMEOUT", "1"},
        {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", hang.stacks_dir + "/nccl_trace_rank_"}};
    std::error_code ignored;
    std::filesystem::create_directories(hang.stacks_dir, ignored);
    for (auto& child : children) {
      for (const auto& [name, value] : recorder) {
        if (!environment.count(name)) child.env[name] = value;
      }
    }
  }
  auto code = scalestudy::launch::run_children(children, grace, hang);
  if (!code) {
    std::cerr << "scalestudy-launch: " << code.status().message() << "\n";
    return 1;
  }
  return *code;
}
