// What the local SLURM cluster says about a job and its nodes, for the cluster suites that
// break nodes under running jobs: where a job runs once it does, its accounting fields,
// what scontrol still knows of it, a node's state. Polls with deadlines, never a sleep
// that hopes. Header-only; include it from one translation unit.
#pragma once

#include <chrono>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "orchestrator/common/process_runner.hpp"

namespace scalestudy::testing {

// The text a command printed, empty when it failed.
inline std::string printed_by(std::vector<std::string> argv) {
  auto ran = common::run_process({std::move(argv), {}, 30'000});
  return ran && ran->succeeded() ? ran->stdout_text : "";
}

// The hosts of a node list ("node[1-2]" -> node1, node2).
inline std::set<std::string> hosts_of(const std::string& node_list) {
  std::set<std::string> hosts;
  std::stringstream lines(printed_by({"scontrol", "show", "hostnames", node_list}));
  for (std::string host; std::getline(lines, host);) {
    if (!host.empty()) hosts.insert(host);
  }
  return hosts;
}

// sacct's `field` of job `job_id` itself (not its steps); empty while accounting has none.
inline std::string sacct_field(const std::string& job_id, const std::string& field) {
  const std::string text =
      printed_by({"sacct", "-n", "-X", "--parsable2", "-j", job_id, "--format=" + field});
  return text.substr(0, text.find('\n'));
}

// `KEY=value` of `scontrol show job` (ExcNodeList, BatchHost, ...), while slurmctld still
// knows the job (MinJobAge after its end); empty otherwise.
inline std::string scontrol_field(const std::string& job_id, const std::string& key) {
  std::stringstream words(printed_by({"scontrol", "-o", "show", "job", job_id}));
  for (std::string word; words >> word;) {
    if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
  }
  return "";
}

// Whether `done` holds within `timeout_s`, asked every half second.
inline bool holds_within(int timeout_s, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return true;
}

// A running job's nodes and the node that runs its batch script.
struct RunningJob {
  std::string node_list, batch_host;
};

// Job `job_id` once squeue says it runs and `started` (its ranks' own marks) holds; empty
// fields when not within `timeout_s`.
inline RunningJob wait_running(const std::string& job_id, const std::function<bool()>& started,
                               int timeout_s = 120) {
  RunningJob job;
  holds_within(timeout_s, [&] {
    std::stringstream fields(printed_by({"squeue", "-h", "-j", job_id, "-o", "%T %N %B"}));
    std::string state;
    RunningJob seen;
    fields >> state >> seen.node_list >> seen.batch_host;
    if (state != "RUNNING" || !started()) return false;
    job = seen;
    return true;
  });
  return job;
}

// Whether sinfo says node `node` is `state` (idle, ...) within `timeout_s`.
inline bool wait_node_state(const std::string& node, const std::string& state, int timeout_s) {
  return holds_within(timeout_s, [&] {
    const std::string text = printed_by({"sinfo", "-h", "-N", "-n", node, "-o", "%T"});
    return text.substr(0, text.find('\n')) == state;
  });
}

}  // namespace scalestudy::testing
