// Test helper for the suites that run on the local SLURM cluster (slurm/cluster/), label
// `slurm`, RESOURCE_LOCK slurm_cluster: ClusterSession starts the cluster once per test
// binary (needs root and the cluster scripts; a test skips itself otherwise through
// REQUIRE_CLUSTER) and stops it at exit if it started it; studies are written and read
// back through the `scalestudy` CLI. Header-only; include it from one translation unit.
#pragma once

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/cli_test_support.hpp"

namespace scalestudy::testing {

namespace fs = std::filesystem;
using common::ProcessResult;
using common::run_process;

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
  const fs::path& work_dir() const { return work_dir_; }

  ~ClusterSession() {
    if (started_here_) run_process({{scripts_ + "/stop.sh"}, {}, 120'000});
  }

 private:
  ClusterSession() {
    const char* source = std::getenv("SCALESTUDY_SOURCE_DIR");
    scripts_ = std::string(source != nullptr ? source : ".") + "/slurm/cluster";
    if (geteuid() != 0) {
      why_not_ = "not root";
      return;
    }
    if (!fs::exists(scripts_ + "/start.sh")) {
      why_not_ = "no slurm/cluster/start.sh";
      return;
    }
    const std::string state_dir = std::getenv("SCALESTUDY_SLURM_DIR")
                                      ? std::getenv("SCALESTUDY_SLURM_DIR")
                                      : "/tmp/scalestudy-slurm";
    bool was_running = fs::exists(state_dir + "/env.sh") && load_env(state_dir + "/env.sh") &&
                       run_process({{"scontrol", "ping"}, {}, 10'000})->succeeded();
    if (!was_running) {
      auto started = run_process({{scripts_ + "/start.sh"}, {}, 240'000});
      if (!started || !started->succeeded()) {
        why_not_ =
            "start.sh failed: " + (started ? started->stderr_text : started.status().message());
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
    work_dir_ = scratch_dir("slurm_cluster");
    fs::permissions(work_dir_, fs::perms::all | fs::perms::sticky_bit);
    ready_ = true;
  }

  // `export KEY='VALUE'` lines into our environment.
  static bool load_env(const std::string& path) {
    std::ifstream file(path);
    if (!file) return false;
    for (std::string line; std::getline(file, line);) {
      if (line.rfind("export ", 0) != 0) continue;
      size_t equals = line.find('=');
      std::string key = line.substr(7, equals - 7), value = line.substr(equals + 1);
      if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
        value = value.substr(1, value.size() - 2);
      }
      setenv(key.c_str(), value.c_str(), 1);
    }
    return true;
  }

  std::string scripts_;
  fs::path work_dir_;
  bool ready_ = false;
  bool started_here_ = false;
  std::string why_not_;
};

#define REQUIRE_CLUSTER()                                                       \
  ClusterSession& cluster = ClusterSession::get();                              \
  if (!cluster.ready()) {                                                       \
    MESSAGE("skipped: local SLURM cluster unavailable: " << cluster.why_not()); \
    return;                                                                     \
  }

std::string write_study(const fs::path& dir, const std::string& name, const std::string& body) {
  fs::create_directories(dir);
  const std::string path = (dir / (name + ".yaml")).string();
  std::ofstream(path) << "study: " << name << "\n" << body;
  return path;
}

nlohmann::json status_of(const std::string& study, const std::string& results) {
  ProcessResult shown = run_cli({"status", study, "--format", "json", "--results-dir", results});
  REQUIRE(shown.exit_code == 0);
  return nlohmann::json::parse(shown.stdout_text);
}

}  // namespace scalestudy::testing
