// FailureClass: why an attempt ended unsuccessfully, in the form a user (and the retry
// policy) can act on, decided once from the evidence a finished job leaves: the
// scheduler's state, exit status and reason, and the last lines of the run's logs. The
// study database stores the class and its evidence line beside the attempt (campaign/);
// status, report and the Python package read them from there (docs/failures.md). Pure
// functions over value types; no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/common/job_state.hpp"

namespace scalestudy::common {

enum class FailureClass {
  kNode,       // the machine failed the run: node failure, lost rank, network, GPU Xid/ECC
  kProgram,    // the program failed: a traceback, an exception, a reported error, OOM
  kTime,       // the allocation's time limit
  kHang,       // no progress: scalestudy-launch's watchdog, a collective that timed out
  kSetup,      // the run could not start: an output file, a folder or the binary missing
  kPreempted,  // the scheduler took the allocation back (or a checkpointed stop)
  kCancelled,  // a person (scancel, scalestudy cancel, Ctrl-C) stopped it
  kUnknown,    // the evidence does not say; the evidence line names what was missing
};

// "node", "program", ...: the names stored in the study database.
const char* to_string(FailureClass kind);
std::optional<FailureClass> parse_failure_class(std::string_view name);
// Every class, in the order above (tables list them so).
const std::vector<FailureClass>& all_failure_classes();
// node and hang failures are the nodes' fault: their nodes are excluded from the retry.
bool blames_nodes(FailureClass kind);

// The last lines of one log of the run (rank0.log, slurm-12.out ...), oldest first, and how
// long before the attempt's end it was last written (unknown: nullopt).
struct LogTail {
  std::string name;
  std::vector<std::string> lines;
  std::optional<double> quiet_s{};
};

// sacct's "0:53" as parse_slurm_exit_code reads it (128 + 53): the allocation failed before
// its first step (slurmd could not open an output file or enter the working folder).
inline constexpr int kSlurmSetupExitCode = 128 + 53;

// A run that wrote nothing for this long before its time limit was not progressing.
inline constexpr double kStalledAfterS = 600;

struct Failure {
  FailureClass kind = FailureClass::kUnknown;
  std::string evidence;  // the line that decided it: a log line with its file, or the state
};

// A SLURM job's time limit and the lead of the warning signal it asked for (--signal
// TERM@lead, sched/render/job_script.cpp). SLURM may send the signal up to 60 s early.
struct TimeLimit {
  int limit_s = 0;  // 0: none known (the local executor's runs, packed steps)
  int warning_lead_s = 0;
};
inline constexpr int kWarningSignalEarlyS = 60;

// The class of an attempt that ended in `status` (terminal, not COMPLETED), with the logs'
// last lines as further evidence. The scheduler's own verdicts (PREEMPTED, CANCELLED,
// TIMEOUT, NODE_FAIL) come first, with a job that died of SIGTERM in the window of its
// time limit's warning signal (`limit`: a run that does not checkpoint ends FAILED 143 there,
// before SLURM would say TIMEOUT); then the logs, read for the node's fault before the
// program's (a traceback that a connection reset raised is the node's); then the exit status.
Failure classify_failure(const JobStatus& status, const std::vector<LogTail>& logs,
                         const TimeLimit& limit = {});

}  // namespace scalestudy::common
