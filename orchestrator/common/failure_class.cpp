#include "orchestrator/common/failure_class.hpp"

#include <signal.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <regex>
#include <utility>

#include "harness/core/ascii_case.hpp"
#include "orchestrator/common/utc_time.hpp"

namespace scalestudy::common {
namespace {

constexpr std::array<std::pair<FailureClass, const char*>, 8> kClassNames = {{
    {FailureClass::kNode, "node"},
    {FailureClass::kProgram, "program"},
    {FailureClass::kTime, "time"},
    {FailureClass::kHang, "hang"},
    {FailureClass::kSetup, "setup"},
    {FailureClass::kPreempted, "preempted"},
    {FailureClass::kCancelled, "cancelled"},
    {FailureClass::kUnknown, "unknown"},
}};

// An evidence line is one line of a table cell, not a log.
constexpr size_t kEvidenceWidth = 300;

// A log line that shows a class: every fragment (lower case) in the line.
struct LinePattern {
  FailureClass kind;
  std::vector<std::string_view> all_of;
};

const std::vector<LinePattern>& line_patterns() {
  static const std::vector<LinePattern> kPatterns = {
      // A rendezvous port (MASTER_PORT) something on the node held: neither the program's
      // fault nor the node's; a retry's job derives another port.
      {FailureClass::kUnknown, {"address already in use"}},
      // A rank that met another launch at that port (harness/dist/connect.cpp): the same.
      // First, since the line quotes what that launch's store holds, which may read as any
      // pattern below.
      {FailureClass::kUnknown, {"is another launch's"}},
      {FailureClass::kSetup, {"could not open stdout file"}},
      {FailureClass::kSetup, {"could not open stderr file"}},
      {FailureClass::kSetup, {"couldn't chdir"}},
      {FailureClass::kSetup, {"could not chdir"}},
      {FailureClass::kSetup, {"execve():"}},
      {FailureClass::kSetup, {"scalestudy: cannot execute"}},
      {FailureClass::kSetup, {"command not found"}},
      {FailureClass::kHang, {"watchdog caught collective operation timeout"}},
      {FailureClass::kHang, {"gloo", "timed out"}},
      {FailureClass::kHang, {"scalestudy-launch: no progress for"}},
      {FailureClass::kNode, {"nvrm: xid"}},
      {FailureClass::kNode, {"uncorrectable"}},
      {FailureClass::kNode, {"ecc error"}},
      {FailureClass::kNode, {"connection reset by peer"}},
      {FailureClass::kNode, {"ncclremoteerror"}},
      {FailureClass::kNode, {"remote process exited or there was a network error"}},
      {FailureClass::kNode, {"due to node failure"}},
      {FailureClass::kNode, {"srun: error: node failure"}},
      {FailureClass::kNode, {"application launch failed"}},
  };
  return kPatterns;
}

std::optional<FailureClass> line_class(const std::string& line) {
  const std::string text = ascii_lowercase(line);
  for (const LinePattern& pattern : line_patterns()) {
    const bool all =
        std::all_of(pattern.all_of.begin(), pattern.all_of.end(),
                    [&](std::string_view part) { return text.find(part) != text.npos; });
    if (all) return pattern.kind;
  }
  return std::nullopt;
}

// torchrun and srun --label prefix each line with its rank ("[rank1]: ", "1: ").
std::string without_rank_prefix(const std::string& line) {
  static const std::regex kPrefix(R"(^(\[rank\d+\]:|\d+:)\s?)");
  return std::regex_replace(line, kPrefix, "", std::regex_constants::format_first_only);
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  text.erase(0, start);
  if (text.size() > kEvidenceWidth) text = text.substr(0, kEvidenceWidth - 3) + "...";
  return text;
}

std::string cited(const LogTail& log, const std::string& line) {
  return log.name + ": " + trimmed(line);
}

// The program's own report of its failure in one log: a Python traceback's exception line
// (the first unindented line after the last "Traceback"), a C++ exception that ended the
// process, or a loss that is NaN or infinite.
std::optional<std::string> program_error(const LogTail& log) {
  static const std::regex kNonFiniteLoss(R"(\bloss\b.*\b(nan|inf)\b)", std::regex::icase);
  std::optional<std::string> found;
  for (size_t i = 0; i < log.lines.size(); ++i) {
    const std::string line = without_rank_prefix(log.lines[i]);
    if (line.rfind("Traceback (most recent call last)", 0) == 0) {
      for (size_t j = i + 1; j < log.lines.size(); ++j) {
        const std::string next = without_rank_prefix(log.lines[j]);
        if (!next.empty() && !std::isspace(static_cast<unsigned char>(next[0]))) {
          found = next;
          break;
        }
      }
    } else if (line.find("terminate called after throwing an instance of") != line.npos) {
      found = line;
      if (i + 1 < log.lines.size()) found = line + " " + trimmed(log.lines[i + 1]);
    } else if (std::regex_search(line, kNonFiniteLoss)) {
      found = line;
    }
  }
  return found;
}

bool raised_by_itself(int signal_number) {
  return signal_number == SIGSEGV || signal_number == SIGABRT || signal_number == SIGFPE ||
         signal_number == SIGILL || signal_number == SIGBUS || signal_number == SIGTRAP ||
         signal_number == SIGSYS;
}

std::string on_nodes(const JobStatus& status) {
  return status.placement.node_list.empty() ? "" : " on " + status.placement.node_list;
}

std::string state_evidence(const JobStatus& status) {
  std::string text = to_string(status.state);
  if (!status.reason.empty()) text += " (" + status.reason + ")";
  return text + on_nodes(status);
}

// The last non-empty line of the run's first log (what it was doing when it ended), and
// whether it was progressing: some log written within kStalledAfterS of the end.
std::string last_output(const std::vector<LogTail>& logs) {
  std::string text;
  for (const LogTail& log : logs) {
    for (auto line = log.lines.rbegin(); line != log.lines.rend() && text.empty(); ++line) {
      if (!trimmed(*line).empty()) text = "; last output: " + cited(log, *line);
    }
  }
  std::optional<double> quiet_s;
  for (const LogTail& log : logs) {
    if (log.quiet_s && (!quiet_s || *log.quiet_s < *quiet_s)) quiet_s = log.quiet_s;
  }
  if (!quiet_s) return text;
  const long seconds = std::lround(std::max(0.0, *quiet_s));
  if (*quiet_s < kStalledAfterS) {
    return text + " (progressing: output " + std::to_string(seconds) + " s before the end)";
  }
  return text + " (not progressing: no output for " + std::to_string(seconds) +
         " s before the end)";
}

std::optional<Failure> from_scheduler_state(const JobStatus& status,
                                            const std::vector<LogTail>& logs) {
  switch (status.state) {
    case JobState::kPreempted:
      // The workload's own checkpointed stop (exit 75): at the warning signal SLURM sends
      // before the time limit, or at the local executor's limit. A scheduler's preemption
      // keeps its word (job_state.cpp).
      if (resumes_from_checkpoint(status.reason) && status.reason.rfind("preempted", 0) != 0) {
        return Failure{FailureClass::kTime, state_evidence(status) + last_output(logs)};
      }
      return Failure{FailureClass::kPreempted, state_evidence(status)};
    case JobState::kCancelled:
      return Failure{FailureClass::kCancelled, state_evidence(status)};
    case JobState::kTimeout:
      return Failure{FailureClass::kTime, state_evidence(status) + last_output(logs)};
    case JobState::kNodeFail:
      return Failure{FailureClass::kNode, state_evidence(status)};
    default:
      return std::nullopt;
  }
}

// SIGTERM within the warning window of the job's time limit: SLURM's warning signal, which
// a workload that does not checkpoint dies of.
std::optional<Failure> from_warning_signal(const JobStatus& status,
                                           const std::vector<LogTail>& logs,
                                           const TimeLimit& limit) {
  if (limit.limit_s <= 0 || status.exit_code != 128 + SIGTERM ||
      !status.placement.job_step.empty()) {
    return std::nullopt;
  }
  // sacct's local times and slurmrestd's UTC ones alike: only the difference counts.
  auto seconds = [](std::string time) {
    if (!time.empty() && time.back() != 'Z') time += 'Z';
    return parse_utc_timestamp(time);
  };
  const auto started = seconds(status.placement.started_at);
  const auto ended = seconds(status.placement.ended_at);
  if (!started || !ended) return std::nullopt;
  const long elapsed = std::lround(*ended - *started);
  if (elapsed < limit.limit_s - limit.warning_lead_s - kWarningSignalEarlyS) return std::nullopt;
  return Failure{FailureClass::kTime,
                 state_evidence(status) + ": SIGTERM " + std::to_string(elapsed) + " s into its " +
                     std::to_string(limit.limit_s) +
                     " s limit, SLURM's warning signal before the limit (--signal TERM@" +
                     std::to_string(limit.warning_lead_s) +
                     "); the run did not stop with a checkpoint (exit 75)" + last_output(logs)};
}

// The logs' evidence: a program error that is not itself a node's or a hang's symptom
// (a peer's "connection reset" follows the rank that raised), then the first line that
// shows setup, a hang or the node.
std::optional<Failure> from_logs(const JobStatus& status, const std::vector<LogTail>& logs) {
  for (const LogTail& log : logs) {
    auto error = program_error(log);
    if (error && !line_class(*error)) return Failure{FailureClass::kProgram, cited(log, *error)};
  }
  for (const LogTail& log : logs) {
    for (const std::string& line : log.lines) {
      if (auto kind = line_class(line)) {
        const std::string where = blames_nodes(*kind) ? on_nodes(status) : "";
        return Failure{*kind, cited(log, line) + where};
      }
    }
  }
  return std::nullopt;
}

std::optional<Failure> from_exit_status(const JobStatus& status) {
  // A packed run whose allocation never set up (its reason says so: packed_allocation.cpp).
  // Or one slurmrestd reported as a launch failure (its output file not creatable).
  if (status.reason.find("sacct 0:53") != std::string::npos ||
      status.reason.rfind("JobLaunchFailure", 0) == 0) {
    return Failure{FailureClass::kSetup, state_evidence(status)};
  }
  if (status.state == JobState::kOutOfMemory) {
    return Failure{FailureClass::kProgram,
                   state_evidence(status) + ": the program exhausted its memory"};
  }
  if (!status.exit_code) return std::nullopt;
  const int code = *status.exit_code;
  if (code == 126 || code == 127) {
    return Failure{FailureClass::kSetup, state_evidence(status) + ": exit " + std::to_string(code) +
                                             ", the program could not be started"};
  }
  if (code == kSlurmSetupExitCode) {
    return Failure{FailureClass::kSetup,
                   state_evidence(status) +
                       ": sacct 0:53, the allocation failed before its first step (an output "
                       "file or working folder the job's user cannot open on the node)"};
  }
  if (code > 128 && code <= 128 + 64) {
    const int signal_number = code - 128;
    if (raised_by_itself(signal_number)) {
      return Failure{FailureClass::kProgram, state_evidence(status)};
    }
    return Failure{FailureClass::kNode, state_evidence(status) + ": signal " +
                                            std::to_string(signal_number) +
                                            " came from outside the program"};
  }
  return std::nullopt;
}

std::string log_names(const std::vector<LogTail>& logs) {
  std::string names;
  for (const LogTail& log : logs) names += (names.empty() ? "" : ", ") + log.name;
  return names;
}

}  // namespace

const char* to_string(FailureClass kind) {
  for (const auto& [value, name] : kClassNames) {
    if (value == kind) return name;
  }
  return "unknown";
}

std::optional<FailureClass> parse_failure_class(std::string_view name) {
  for (const auto& [value, known] : kClassNames) {
    if (name == known) return value;
  }
  return std::nullopt;
}

const std::vector<FailureClass>& all_failure_classes() {
  static const std::vector<FailureClass> kAll = [] {
    std::vector<FailureClass> all;
    for (const auto& entry : kClassNames) all.push_back(entry.first);
    return all;
  }();
  return kAll;
}

bool blames_nodes(FailureClass kind) {
  return kind == FailureClass::kNode || kind == FailureClass::kHang;
}

Failure classify_failure(const JobStatus& status, const std::vector<LogTail>& logs,
                         const TimeLimit& limit) {
  if (auto decided = from_scheduler_state(status, logs)) return *decided;
  if (auto decided = from_warning_signal(status, logs, limit)) return *decided;
  if (auto decided = from_logs(status, logs)) return *decided;
  if (auto decided = from_exit_status(status)) return *decided;
  std::string missing = logs.empty() ? "no log of the run to read"
                                     : "no traceback, exception, error or node line in the "
                                       "last lines of " +
                                           log_names(logs);
  if (!status.exit_code) missing += ", and no exit status";
  return {FailureClass::kUnknown, state_evidence(status) + ": " + missing};
}

}  // namespace scalestudy::common
