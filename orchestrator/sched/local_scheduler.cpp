#include "orchestrator/sched/local_scheduler.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "harness/core/exit_codes.hpp"
#include "harness/core/whole_number.hpp"
#include "orchestrator/common/fork_signals.hpp"
#include "orchestrator/common/interrupt_watch.hpp"
#include "orchestrator/sched/child_exit.hpp"
#include "orchestrator/sched/exit_record.hpp"
#include "orchestrator/sched/job_script_preparation.hpp"
#include "orchestrator/sched/launch_gate.hpp"
#include "orchestrator/sched/local_launch.hpp"
#include "orchestrator/sched/py_spy_lookup.hpp"

extern char** environ;

namespace scalestudy::sched {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kKillGrace = std::chrono::seconds(5);
// At the time limit the ranks get SIGTERM and this long to finish their step and write a
// checkpoint (SLURM's default KillWait) before SIGKILL.
constexpr auto kCheckpointGrace = std::chrono::seconds(30);
// How often to look for exited ranks where their exit cannot be waited for (no pidfd), and
// to repeat SIGKILL to a run that outlives it.
constexpr auto kReapInterval = std::chrono::milliseconds(20);

struct RankProcess {
  pid_t pid = 0;
  bool done = false;
  int wait_status = 0;
  bool launcher = false;  // scalestudy-launch, whose ranks are its children
  ChildExit exit;         // readable once the process has exited
};

struct ActiveRun {
  Submission submission;
  int slots = 1;
  int master_port = 0;
  pid_t group = 0;
  std::vector<RankProcess> ranks;
  std::optional<Clock::time_point> deadline;  // the run's time limit
  std::optional<Clock::time_point> kill_at;   // SIGKILL after SIGTERM's grace period
  bool timed_out = false;
  std::optional<JobStatus> first_failure;  // the first rank that did not exit 0 (or 75)
  size_t checkpointed = 0;                 // ranks that exited exit_codes::kCheckpointed
  bool interrupted = false;                // stopped because of a Ctrl-C on the submitter
};

constexpr const char* kInterruptedReason = "stopped by Ctrl-C on the submitting scalestudy";

std::string local_job_id(pid_t group) {
  return "local-" + std::to_string(getpid()) + "." + std::to_string(group);
}

// A port the kernel considers free right now; `taken` keeps concurrent runs apart.
Result<int> free_port(const std::set<int>& taken) {
  for (int tries = 0; tries < 32; ++tries) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Status::error("socket: " + std::string(std::strerror(errno)));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    int port = -1;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      port = ntohs(address.sin_port);
    }
    close(fd);
    if (port > 0 && taken.count(port) == 0) return port;
  }
  return Status::error("no free TCP port on 127.0.0.1 for MASTER_PORT");
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text(*entry);
    if (overrides.count(text.substr(0, text.find('='))) == 0) entries.push_back(std::move(text));
  }
  for (const auto& [key, value] : overrides) entries.push_back(key + "=" + value);
  return entries;
}

// Forks one process into process group `group` (0: a new group led by it); it execs
// only once `gate` is released, under a keeper that records its end at `record_path`
// (exit_record.hpp), the `index`th of the run's `processes`.
Result<pid_t> spawn(const LocalProcess& process, pid_t group, const LaunchGate& gate,
                    const std::string& record_path, size_t processes, bool launcher) {
  std::vector<std::string> argv_storage = process.argv;
  std::vector<std::string> env_storage = environment_with(process.env_overrides);
  std::vector<char*> argv, envp;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  for (auto& entry : env_storage) envp.push_back(entry.data());
  envp.push_back(nullptr);
  int log_fd = open(process.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return Status::error(process.log_path + ": " + std::string(std::strerror(errno)));
  }
  common::ForkSignalGuard signals;
  pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return Status::error("fork: " + std::string(std::strerror(errno)));
  }
  if (pid == 0) {
    signals.prepare_child();
    setpgid(0, group);
    int null_input = open("/dev/null", O_RDONLY);
    if (null_input >= 0) dup2(null_input, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    if (!gate.wait_in_child()) _exit(127);
    // No allocation in the forked child: only async-signal-safe calls.
    exec_under_keeper(argv.data(), envp.data(), record_path.c_str(), processes, launcher);
  }
  setpgid(pid, group == 0 ? pid : group);  // also in the parent: no race with kill(-group)
  close(log_fd);
  return pid;
}

// A signal that ended a rank, from outside (scalestudy cancel, kill, a time limit) or not.
JobStatus killed_by(const std::string& who, int signal_number) {
  JobStatus status;
  // SIGTERM/SIGKILL/SIGINT from outside (scalestudy cancel, kill) read as a cancellation.
  bool external_stop =
      signal_number == SIGTERM || signal_number == SIGKILL || signal_number == SIGINT;
  status.state = external_stop ? JobState::kCancelled : JobState::kFailed;
  status.exit_code = 128 + signal_number;
  status.reason = who + " killed by signal " + std::to_string(signal_number) + " (" +
                  strsignal(signal_number) + ")";
  return status;
}

// scalestudy-launch exits 128 + N when the first of its ranks to fail died of signal N.
constexpr int kLauncherSignalBase = 128;
constexpr int kLastSignal = 64;

JobStatus rank_failure(size_t index, const RankProcess& process) {
  const int wait_status = process.wait_status;
  // A launcher is not a rank: its log names the rank that failed.
  const std::string who = process.launcher ? "a rank under scalestudy-launch (see its log)"
                                           : "rank " + std::to_string(index);
  if (WIFEXITED(wait_status)) {
    const int code = WEXITSTATUS(wait_status);
    if (process.launcher && code > kLauncherSignalBase &&
        code <= kLauncherSignalBase + kLastSignal) {
      return killed_by(who, code - kLauncherSignalBase);
    }
    JobStatus status;
    status.state = JobState::kFailed;
    status.exit_code = code;
    status.reason = who + " exited with code " + std::to_string(code);
    return status;
  }
  return killed_by(who, WTERMSIG(wait_status));
}

void signal_group(ActiveRun& run, int signal_number, std::chrono::seconds grace = kKillGrace) {
  kill(-run.group, signal_number);
  if (signal_number == SIGTERM) run.kill_at = Clock::now() + grace;
}

bool exited_with(const RankProcess& process, int code) {
  return WIFEXITED(process.wait_status) && WEXITSTATUS(process.wait_status) == code;
}

// Reaps what has exited, stops the rest of a run after a failure or at its time limit.
// Returns true when every rank of the run has exited.
bool advance(ActiveRun& run) {
  bool all_done = true;
  for (size_t rank = 0; rank < run.ranks.size(); ++rank) {
    RankProcess& process = run.ranks[rank];
    if (process.done) continue;
    pid_t reaped = waitpid(process.pid, &process.wait_status, WNOHANG);
    if (reaped == process.pid || (reaped < 0 && errno == ECHILD)) {
      process.done = true;
      process.exit = ChildExit();
      // A rank that checkpointed stopped on request; the others are stopping alike.
      if (exited_with(process, exit_codes::kCheckpointed)) {
        ++run.checkpointed;
        continue;
      }
      if (!exited_with(process, 0) && !run.first_failure && !run.kill_at) {
        run.first_failure = rank_failure(rank, process);
        signal_group(run, SIGTERM);
      }
      continue;
    }
    all_done = false;
  }
  if (all_done) return true;
  auto now = Clock::now();
  if (run.deadline && now >= *run.deadline && !run.kill_at) {
    run.timed_out = true;
    signal_group(run, SIGTERM, kCheckpointGrace);
  } else if (run.kill_at && now >= *run.kill_at) {
    kill(-run.group, SIGKILL);
  }
  return false;
}

// When advance() next has something to do for `run` besides reaping: its SIGKILL, its time
// limit, or repeating a SIGKILL already sent.
std::optional<Clock::time_point> next_timer(const ActiveRun& run, Clock::time_point now) {
  if (run.kill_at) return *run.kill_at > now ? *run.kill_at : now + kReapInterval;
  return run.deadline;
}

// Sleeps until a rank of an active run exits, the earliest timer of one is due, or (with
// `interrupt_fd`) a Ctrl-C comes.
void wait_for_active(const std::vector<ActiveRun>& active, int interrupt_fd) {
  const auto now = Clock::now();
  std::vector<const ChildExit*> exits;
  std::optional<Clock::time_point> wake_at;
  for (const ActiveRun& run : active) {
    for (const RankProcess& process : run.ranks) {
      if (!process.done) exits.push_back(&process.exit);
    }
    if (auto timer = next_timer(run, now); timer && (!wake_at || *timer < *wake_at)) {
      wake_at = timer;
    }
  }
  wait_for_child_exit(exits, wake_at, kReapInterval, interrupt_fd);
}

// The words of a Ctrl-C that leaves (the second, or the first with --detach): what goes on
// without this process, and who records it.
std::string left_at_once(const std::vector<ActiveRun>& active, int interrupts) {
  std::string message = interrupts > 1 ? "interrupted again: left at once"
                                       : "interrupted (Ctrl-C) with --detach: left at once";
  if (active.empty()) return message;
  message += "; still stopping, with their ends recorded beside them for `scalestudy status`:";
  for (const ActiveRun& run : active) {
    message += " run " + run.submission.run_id + " (" + run.submission.job_id + ")";
  }
  return message;
}

JobStatus final_status(const ActiveRun& run, int time_limit_minutes) {
  // Stopped on the user's word: cancelled, whatever its ranks did when told to stop.
  const bool all_succeeded =
      std::all_of(run.ranks.begin(), run.ranks.end(),
                  [](const RankProcess& rank) { return exited_with(rank, 0); });
  if (run.interrupted && !all_succeeded)
    return {JobState::kCancelled, std::nullopt, kInterruptedReason};
  // A rank exits 75 only once every rank's part of the checkpoint is committed: the run
  // resumes on its next attempt.
  if (!run.first_failure && run.checkpointed > 0) {
    JobStatus checkpointed =
        common::classify_checkpointed({JobState::kFailed, exit_codes::kCheckpointed, ""});
    if (run.timed_out) {
      checkpointed.reason = "time limit of " + std::to_string(time_limit_minutes) +
                            " min reached; " + checkpointed.reason;
    }
    return checkpointed;
  }
  if (run.timed_out) {
    return {JobState::kTimeout, std::nullopt,
            "time limit of " + std::to_string(time_limit_minutes) + " min reached"};
  }
  if (run.first_failure) return *run.first_failure;
  return {JobState::kCompleted, 0, ""};
}

// pid of the submitter and process group encoded in a local job id.
std::optional<std::pair<pid_t, pid_t>> parse_local_job_id(const std::string& job_id) {
  const std::string prefix = "local-";
  if (job_id.rfind(prefix, 0) != 0) return std::nullopt;
  size_t dot = job_id.find('.', prefix.size());
  if (dot == std::string::npos) return std::nullopt;
  try {
    return std::make_pair(static_cast<pid_t>(std::stol(job_id.substr(prefix.size()))),
                          static_cast<pid_t>(std::stol(job_id.substr(dot + 1))));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool alive(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}
// Whether a process of `group` still runs. Zombies do not count: a run's keeper whose
// submitter is gone waits, ended, for init to reap it.
bool group_alive(pid_t group) {
  if (kill(-group, 0) != 0 && errno != EPERM) return false;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // "pid (command) state ppid pgrp ...": the command may hold spaces and parentheses.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 1));
    char state = 0;
    long parent = 0, process_group = 0;
    if (fields >> state >> parent >> process_group && process_group == group && state != 'Z') {
      return true;
    }
  }
  return error ? true : false;
}

// The whole number given for `flag`, or `fallback` when it was not given.
Result<int> whole_number(const SchedulerOptionValues& values, const std::string& flag,
                         int fallback) {
  auto found = values.find(flag);
  if (found == values.end()) return fallback;
  return parse_whole_number(flag, found->second);
}

}  // namespace

Result<LocalOptions> parse_local_options(const SchedulerContext& context,
                                         const SchedulerOptionValues& values) {
  LocalOptions options;
  auto max_parallel = whole_number(values, "--max-parallel", 1);
  auto max_slots = whole_number(values, "--max-slots", 0);
  if (!max_parallel || !max_slots || *max_parallel < 1 || *max_slots < 0) {
    return Status::error("--max-parallel and --max-slots take positive numbers");
  }
  options.max_parallel_runs = *max_parallel;
  options.max_slots = *max_slots;
  // Ranks start through the torchrun-style launcher when it is built.
  const std::string launcher = context.bin_dir + "/scalestudy-launch";
  if (!context.bin_dir.empty() && std::filesystem::exists(launcher)) {
    options.launcher_path = launcher;
    options.py_spy_path = submitter_py_spy();
  }
  options.interrupts = context.interrupts;
  options.detach_on_interrupt = context.detach_on_interrupt;
  return options;
}

SchedulerEntry local_scheduler_entry() {
  SchedulerEntry entry;
  entry.name = "local";
  entry.family = "local";
  entry.options = {{"--max-parallel", "N", "runs at once (default 1)"},
                   {"--max-slots", "N", "ranks at once (default: hardware threads)"}};
  entry.help_note =
      "The local scheduler has no daemon: it runs the runs itself, in this process, and "
      "returns when they have finished. Ctrl-C on `scalestudy run` stops them and records "
      "them cancelled (a second Ctrl-C leaves at once); a run whose submitter was killed goes "
      "on, and the next `status` reads how it ended.";
  entry.cancels_with = "SIGTERM to a local run's processes";
  entry.check_options = [](const SchedulerOptionValues& values) {
    return parse_local_options({}, values).status();
  };
  // A system's max_parallel is the flag --max-parallel, and so on.
  for (const SchedulerOption& option : entry.options) {
    std::string key = option.flag.substr(2);
    std::replace(key.begin(), key.end(), '-', '_');
    entry.system_keys.push_back({key, option.value_name, option.help});
  }
  entry.check_system_key = [](const std::string& key, const std::string& value) {
    auto number = parse_whole_number(key, value);
    const int minimum = key == "max_parallel" ? 1 : 0;
    if (!number || *number < minimum) {
      return Status::error("expected a whole number of at least " + std::to_string(minimum) +
                           ", got '" + value + "'");
    }
    return Status::ok();
  };
  entry.make = [](const SchedulerContext& context,
                  const SchedulerOptionValues& values) -> Result<std::unique_ptr<Scheduler>> {
    auto options = parse_local_options(context, values);
    if (!options) return options.status();
    return std::unique_ptr<Scheduler>(new LocalScheduler(*options));
  };
  return entry;
}

Result<PreparedRun> LocalScheduler::prepare(const RunSpec& spec,
                                            const RunPreparation& preparation) const {
  auto run = prepare_job_script(spec, preparation);
  if (!run || !preparation.profiled) return run;
  auto wrapper = local_wrapper_argv(preparation.profile, preparation.out_dir, spec.run_id);
  if (!wrapper) return wrapper.status();
  wrapper->insert(wrapper->end(), run->workload_argv.begin(), run->workload_argv.end());
  run->workload_argv = std::move(*wrapper);
  return run;
}

LocalScheduler::LocalScheduler(const LocalOptions& options)
    : max_parallel_runs_(std::max(1, options.max_parallel_runs)),
      max_slots_(options.max_slots > 0
                     ? options.max_slots
                     : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
      launcher_path_(options.launcher_path),
      py_spy_path_(options.py_spy_path),
      interrupts_(options.interrupts),
      detach_on_interrupt_(options.detach_on_interrupt) {}

Result<std::vector<Submission>> LocalScheduler::submit(const std::vector<PreparedRun>& runs,
                                                       const SubmitCallbacks& callbacks) {
  std::vector<Submission> submissions;
  std::vector<ActiveRun> active;
  std::set<int> ports_in_use;
  int slots_in_use = 0;
  size_t next = 0;
  Status start_error;
  int interrupts = 0;
  while ((next < runs.size() && start_error.is_ok() && interrupts == 0) || !active.empty()) {
    // Ctrl-C: the first stops the runs started here (SIGTERM, then SIGKILL after a grace)
    // and starts no more; the second leaves them to their keepers (exit_record.hpp).
    if (interrupts_ != nullptr) {
      const int before = interrupts;
      interrupts += interrupts_->take();
      if (interrupts >= (detach_on_interrupt_ ? 1 : 2)) {
        return Status::error(left_at_once(active, interrupts));
      }
      if (before == 0 && interrupts == 1) {
        for (ActiveRun& run : active) {
          run.interrupted = true;
          if (!run.kill_at) signal_group(run, SIGTERM);
        }
      }
    }
    while (next < runs.size() && start_error.is_ok() && interrupts == 0 &&
           static_cast<int>(active.size()) < max_parallel_runs_) {
      const PreparedRun& run = runs[next];
      int slots = std::max(1, run.spec.world_size);
      if (!active.empty() && slots_in_use + slots > max_slots_) break;
      auto port = free_port(ports_in_use);
      if (!port) {
        start_error = port.status();
        break;
      }
      auto gate = LaunchGate::open();
      if (!gate) {
        start_error = gate.status();
        break;
      }
      ActiveRun started;
      started.slots = slots;
      started.master_port = *port;
      const std::vector<LocalProcess> processes =
          plan_local_launch(run, launcher_path_, *port, py_spy_path_);
      for (size_t index = 0; index < processes.size(); ++index) {
        const LocalProcess& process = processes[index];
        const bool launcher = process.argv.front() == launcher_path_;
        auto pid = spawn(process, started.group, *gate, exit_record_path(run.out_dir, index),
                         processes.size(), launcher);
        if (!pid) {
          start_error = pid.status().with_context("run " + run.spec.run_id);
          break;
        }
        if (started.group == 0) started.group = *pid;
        started.ranks.push_back({*pid, false, 0, launcher, ChildExit::watch(*pid)});
      }
      if (started.group == 0) break;
      started.submission = {run.spec.run_id, local_job_id(started.group)};
      // The processes exist but wait at the gate: the run starts only once it is recorded.
      if (start_error.is_ok() && callbacks.launching) {
        if (Status recorded = callbacks.launching(started.submission); !recorded) {
          start_error = recorded.with_context("run " + run.spec.run_id + " not started");
        }
      }
      if (!start_error.is_ok()) {
        signal_group(started, SIGKILL);
        for (RankProcess& process : started.ranks) waitpid(process.pid, nullptr, 0);
        break;
      }
      gate->release(static_cast<int>(started.ranks.size()));
      if (run.spec.slurm.time_limit_minutes > 0) {
        started.deadline = Clock::now() + std::chrono::minutes(run.spec.slurm.time_limit_minutes);
      }
      submissions.push_back(started.submission);
      if (callbacks.submitted) callbacks.submitted(started.submission);
      ports_in_use.insert(started.master_port);
      slots_in_use += slots;
      active.push_back(std::move(started));
      ++next;
    }
    bool finished_any = false;
    for (auto it = active.begin(); it != active.end();) {
      if (!advance(*it)) {
        ++it;
        continue;
      }
      const PreparedRun& run = *std::find_if(runs.begin(), runs.end(), [&](const PreparedRun& r) {
        return r.spec.run_id == it->submission.run_id;
      });
      JobStatus status = final_status(*it, run.spec.slurm.time_limit_minutes);
      finished_[it->submission.job_id] = status;
      if (callbacks.finished) callbacks.finished(it->submission, status);
      ports_in_use.erase(it->master_port);
      slots_in_use -= it->slots;
      it = active.erase(it);
      finished_any = true;
    }
    // A run that just ended may have freed room for the next: start it before sleeping.
    if (!active.empty() && !finished_any) {
      wait_for_active(active, interrupts_ != nullptr ? interrupts_->fd() : -1);
    }
  }
  if (!start_error.is_ok()) return start_error;
  if (interrupts > 0) {
    return Status::error(
        "interrupted (Ctrl-C): the runs started here were stopped and recorded "
        "CANCELLED; " +
        std::to_string(runs.size() - next) + " not started");
  }
  return submissions;
}

Result<std::map<std::string, JobStatus>> LocalScheduler::poll(
    const std::vector<std::string>& job_ids) {
  std::map<std::string, JobStatus> states;
  for (const auto& job_id : job_ids) {
    if (auto known = finished_.find(job_id); known != finished_.end()) {
      states[job_id] = known->second;
      continue;
    }
    auto ids = parse_local_job_id(job_id);
    if (!ids) continue;
    auto [submitter, group] = *ids;
    if (group_alive(group)) {
      states[job_id] = {JobState::kRunning, std::nullopt, ""};
    } else if (!alive(submitter)) {
      states[job_id] = {JobState::kFailed, std::nullopt,
                        "lost: the submitting process " + std::to_string(submitter) +
                            " ended before recording how the run ended"};
    }
    // Group gone but submitter alive: it is about to record the result; leave it to it.
  }
  return states;
}

std::optional<JobStatus> LocalScheduler::recorded_end(const std::string& job_id,
                                                      const std::string& out_dir) const {
  auto ids = parse_local_job_id(job_id);
  if (!ids) return std::nullopt;
  auto records = read_exit_records(out_dir, ids->second);
  if (!records) return std::nullopt;
  size_t checkpointed = 0;
  for (size_t index = 0; index < records->size(); ++index) {
    RankProcess process;
    process.wait_status = (*records)[index].wait_status;
    process.launcher = (*records)[index].launcher;
    if (exited_with(process, exit_codes::kCheckpointed)) {
      ++checkpointed;
    } else if (!exited_with(process, 0)) {
      return rank_failure(index, process);
    }
  }
  if (checkpointed > 0) {
    return common::classify_checkpointed({JobState::kFailed, exit_codes::kCheckpointed, ""});
  }
  return JobStatus{JobState::kCompleted, 0, ""};
}

Status LocalScheduler::cancel(const std::vector<std::string>& job_ids) {
  for (const auto& job_id : job_ids) {
    auto ids = parse_local_job_id(job_id);
    if (!ids) return Status::error("not a local job id: " + job_id);
    if (kill(-ids->second, SIGTERM) != 0 && errno != ESRCH) {
      return Status::error("cancel " + job_id + ": " + std::strerror(errno));
    }
  }
  return Status::ok();
}

}  // namespace scalestudy::sched
