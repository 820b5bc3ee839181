// The local SLURM cluster (slurm/cluster/) for the suites that use it. Under CTest the
// fixture slurm_cluster (tests/support/slurm_cluster_fixture.sh) starts it once for every
// cluster suite and, when it cannot, leaves the start's whole error in the file named by
// SCALESTUDY_SLURM_FIXTURE_REASON. A suite run by hand starts it itself (or finds it
// running) and stops it at exit when it started it. Either way its env.sh is loaded into
// this process's environment. REQUIRE_CLUSTER() skips a test case with the reason when
// there is no cluster, and fails it where every prerequisite must be present
// (tests/support/skip.hpp). Suites using it carry RESOURCE_LOCK slurm_cluster.
// Also the two helpers every such suite uses: a study file written, its status read back
// through the `scalestudy` CLI. Header-only; include it from one translation unit.
#pragma once

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "orchestrator/common/process_runner.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy::testing {

// Starts the cluster once for this test binary, loads its env.sh into our environment, and
// stops it at exit if this process started it.
class ClusterSession {
 public:
  static ClusterSession& get() {
    static ClusterSession session;
    return session;
  }
  bool ready() const { return ready_; }
  const std::string& why_not() const { return why_not_; }
  const std::filesystem::path& work_dir() const { return work_dir_; }
  const std::string& state_dir() const { return state_dir_; }
  // Runs slurm/cluster/start.sh again: it starts whichever daemon is not running.
  bool restart_missing_daemons() const {
    auto started = common::run_process({{scripts_ + "/start.sh"}, {}, 240'000});
    return started && started->succeeded();
  }

  // Ends node `node` as a power cut would: its slurmd and every process of its jobs (each
  // slurmstepd that keeps this node's slurmd log open, and every process below it), by
  // SIGKILL. False when its slurmd was not running. restart_missing_daemons brings it back.
  bool kill_node(const std::string& node) const {
    std::ifstream pid_file(state_dir_ + "/run/slurmd-" + node + ".pid");
    pid_t slurmd = 0;
    if (!(pid_file >> slurmd) || kill(slurmd, SIGKILL) != 0) return false;
    const std::string log = state_dir_ + "/log/slurmd-" + node + ".log";
    std::map<pid_t, std::vector<pid_t>> children;
    std::vector<pid_t> doomed;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = std::stoi(name);
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const std::string stat = read_file(entry.path().string() + "/stat");
      std::istringstream fields(stat.substr(std::min(stat.rfind(')') + 1, stat.size())));
      std::string state;
      pid_t parent = 0;
      if (!(fields >> state >> parent)) continue;
      children[parent].push_back(pid);
      if (read_file(entry.path().string() + "/cmdline").rfind("slurmstepd:", 0) == 0 &&
          holds_open(pid, log)) {
        doomed.push_back(pid);
      }
    }
    for (size_t i = 0; i < doomed.size(); ++i) {
      for (pid_t child : children[doomed[i]]) doomed.push_back(child);
    }
    for (pid_t pid : doomed) kill(pid, SIGKILL);
    return true;
  }

  ~ClusterSession() {
    if (started_here_) common::run_process({{scripts_ + "/stop.sh"}, {}, 120'000});
  }

 private:
  ClusterSession() {
    const char* source = std::getenv("SCALESTUDY_SOURCE_DIR");
    scripts_ = std::string(source != nullptr ? source : ".") + "/slurm/cluster";
    if (geteuid() != 0) {
      why_not_ = "not root";
      return;
    }
    if (!std::filesystem::exists(scripts_ + "/start.sh")) {
      why_not_ = "no slurm/cluster/start.sh";
      return;
    }
    state_dir_ = std::getenv("SCALESTUDY_SLURM_DIR") ? std::getenv("SCALESTUDY_SLURM_DIR")
                                                     : "/tmp/scalestudy-slurm";
    const std::string& state_dir = state_dir_;
    bool was_running = std::filesystem::exists(state_dir + "/env.sh") &&
                       load_env(state_dir + "/env.sh") &&
                       common::run_process({{"scontrol", "ping"}, {}, 10'000})->succeeded();
    if (!was_running) {
      if (const char* reason_file = std::getenv("SCALESTUDY_SLURM_FIXTURE_REASON")) {
        // The fixture tried once for every suite; trying again here would only repeat it.
        std::ifstream reason(reason_file);
        std::string why((std::istreambuf_iterator<char>(reason)), {});
        why_not_ = why.empty() ? "the slurm_cluster fixture left no running cluster" : why;
        return;
      }
      auto started = common::run_process({{scripts_ + "/start.sh"}, {}, 600'000});
      if (!started || !started->succeeded()) {
        why_not_ =
            "start.sh failed:\n" + (started ? started->stderr_text : started.status().message());
        return;
      }
      started_here_ = true;
      if (!load_env(state_dir + "/env.sh")) {
        why_not_ = "no env.sh after start.sh";
        return;
      }
    }
    // Jobs through slurmrestd run as an unprivileged user: everything they touch must be
    // world-readable, their output directories world-writable.
    umask(0);
    // One folder per cluster and suite: a suite runs against several clusters at once (one
    // per SLURM release, tests/sched/CMakeLists.txt).
    work_dir_ = scratch_dir(std::filesystem::path(state_dir).filename().string() + "_" +
                            program_invocation_short_name);
    std::filesystem::permissions(work_dir_,
                                 std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    ready_ = true;
  }

  static bool holds_open(pid_t pid, const std::string& path) {
    std::error_code error;
    const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
    for (const auto& fd : std::filesystem::directory_iterator(fds, error)) {
      if (std::filesystem::read_symlink(fd.path(), error) == path) return true;
    }
    return false;
  }

  // `export KEY='VALUE'` lines into our environment, and `export KEY="...$NAME..."` with
  // each $NAME expanded (a newer release's PATH="$SCALESTUDY_SLURM_BIN:$PATH").
  static bool load_env(const std::string& path) {
    std::ifstream file(path);
    if (!file) return false;
    for (std::string line; std::getline(file, line);) {
      if (line.rfind("export ", 0) != 0) continue;
      size_t equals = line.find('=');
      std::string key = line.substr(7, equals - 7), value = line.substr(equals + 1);
      if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
        value = value.substr(1, value.size() - 2);
      } else if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = expand_variables(value.substr(1, value.size() - 2));
      }
      setenv(key.c_str(), value.c_str(), 1);
    }
    return true;
  }

  static std::string expand_variables(const std::string& text) {
    std::string expanded;
    for (size_t i = 0; i < text.size(); ++i) {
      size_t end = i + 1;
      while (text[i] == '$' && end < text.size() && (std::isalnum(text[end]) || text[end] == '_')) {
        ++end;
      }
      if (end == i + 1) {
        expanded += text[i];
        continue;
      }
      const char* value = std::getenv(text.substr(i + 1, end - i - 1).c_str());
      expanded += value != nullptr ? value : "";
      i = end - 1;
    }
    return expanded;
  }

  std::string scripts_;
  std::string state_dir_;
  std::filesystem::path work_dir_;
  bool ready_ = false;
  bool started_here_ = false;
  std::string why_not_;
};

// Runs restart_missing_daemons when it goes out of scope, a failed REQUIRE included: the
// test cases after one that killed a node find every node back.
class DaemonsRestartedAtExit {
 public:
  explicit DaemonsRestartedAtExit(const ClusterSession& cluster) : cluster_(cluster) {}
  DaemonsRestartedAtExit(const DaemonsRestartedAtExit&) = delete;
  DaemonsRestartedAtExit& operator=(const DaemonsRestartedAtExit&) = delete;
  ~DaemonsRestartedAtExit() { cluster_.restart_missing_daemons(); }

 private:
  const ClusterSession& cluster_;
};

#define REQUIRE_CLUSTER()                                                            \
  ClusterSession& cluster = ClusterSession::get();                                   \
  if (!cluster.ready()) {                                                            \
    SKIP_UNLESS_INSTALLED("local SLURM cluster unavailable: " << cluster.why_not()); \
  }

// `study: <name>` followed by `body`, as <dir>/<name>.yaml; returns its path.
inline std::string write_study(const std::filesystem::path& dir, const std::string& name,
                               const std::string& body) {
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (name + ".yaml")).string();
  std::ofstream(path) << "study: " << name << "\n" << body;
  return path;
}

// `submit STUDY ARGS... --results-dir RESULTS` (with `environment` added), then `wait` for
// it; both must succeed.
inline void submit_then_wait(const std::string& study, const std::string& results,
                             std::vector<std::string> args,
                             const std::map<std::string, std::string>& environment = {}) {
  args.insert(args.begin(), {"submit", study});
  args.insert(args.end(), {"--results-dir", results});
  common::ProcessResult submitted = run_cli_with(args, environment, 180'000);
  INFO(submitted.stdout_text << submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  common::ProcessResult waited =
      run_cli({"wait", study, "--results-dir", results, "--poll-interval", "1", "--timeout", "240"},
              300'000);
  INFO(waited.stdout_text << waited.stderr_text);
  CHECK(waited.exit_code == 0);
}

// `scalestudy status <study> --format json`, parsed.
inline nlohmann::json status_of(const std::string& study, const std::string& results) {
  common::ProcessResult shown =
      run_cli({"status", study, "--format", "json", "--results-dir", results});
  REQUIRE(shown.exit_code == 0);
  return nlohmann::json::parse(shown.stdout_text);
}

}  // namespace scalestudy::testing
