// A tiny process runner for the commands the orchestrator calls (sbatch, squeue, sacct,
// scancel, the sysinfo probes, tar/unzip, gnuplot, profilers): fork + exec of an argv (never a
// shell string), stdin from /dev/null, stdout/stderr captured, and a timeout after which the whole
// process group is killed. Stateless and reentrant; call it from one thread at a time when the
// process also forks elsewhere.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::common {

struct ProcessRequest {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::map<std::string, std::string> env_overrides;  // added to (or replacing in) environ
  int timeout_ms = 60'000;
};

struct ProcessResult {
  int exit_code = -1;  // -1 when it died of a signal or timed out
  int signal = 0;      // the terminating signal, 0 if it exited
  bool timed_out = false;
  std::string stdout_text;
  std::string stderr_text;

  bool succeeded() const { return exit_code == 0 && !timed_out; }
};

// Runs the command to completion (or to its timeout). An error only when it could not be
// started at all; a non-zero exit is a ProcessResult for the caller to judge.
Result<ProcessResult> run_process(const ProcessRequest& request);

// "sbatch --parsable /x/job.sbatch" for messages; arguments with spaces are quoted.
std::string describe_command(const std::vector<std::string>& argv);

// The first executable `name` in $PATH, if any.
std::optional<std::string> find_on_path(const std::string& name);

// A failed command as one message: the command line, the exit status and its stderr.
Status command_error(const std::vector<std::string>& argv, const ProcessResult& result);

}  // namespace scalestudy::common
