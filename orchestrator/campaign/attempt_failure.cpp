#include "orchestrator/campaign/attempt_failure.hpp"

#include <sys/stat.h>

#include <cctype>
#include <ctime>
#include <deque>
#include <fstream>
#include <optional>
#include <sstream>

#include "harness/core/run_layout.hpp"
#include "orchestrator/campaign/job_directory.hpp"
#include "orchestrator/common/collective_stacks.hpp"
#include "orchestrator/common/utc_time.hpp"

namespace scalestudy::campaign {
namespace {

// Enough for a traceback and what the ranks said around it; the rest of a log is the
// run's progress.
constexpr size_t kTailLines = 60;

void add_tail(const std::string& path, const std::string& name, std::optional<double> ended,
              std::vector<common::LogTail>& tails) {
  std::ifstream file(path);
  if (!file) return;
  std::deque<std::string> last;
  for (std::string line; std::getline(file, line);) {
    last.push_back(std::move(line));
    if (last.size() > kTailLines) last.pop_front();
  }
  std::optional<double> quiet_s;
  struct stat info {};
  if (ended && stat(path.c_str(), &info) == 0) {
    quiet_s = *ended - static_cast<double>(info.st_mtime);
  }
  tails.push_back({name, {last.begin(), last.end()}, quiet_s});
}

// When the attempt ended, in seconds since the epoch: the scheduler's end (sacct's local
// time, read on this host, or slurmrestd's UTC), else now (the local executor records an
// end as it happens).
std::optional<double> end_time(const common::JobStatus& status) {
  const std::string& text = status.placement.ended_at;
  if (text.empty()) return static_cast<double>(std::time(nullptr));
  if (auto utc = common::parse_utc_timestamp(text)) return utc;  // slurmrestd's, in UTC
  std::tm parts{};
  parts.tm_isdst = -1;
  if (strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &parts) == nullptr) return std::nullopt;
  return static_cast<double>(std::mktime(&parts));
}

// The allocation's number: "123" of "123", "123_4" (an array task) or "123+<run>" (a packed
// run), which names the job's own slurm-<n>.out.
std::string allocation_number(const std::string& job_id) {
  size_t end = 0;
  while (end < job_id.size() && std::isdigit(static_cast<unsigned char>(job_id[end]))) ++end;
  return job_id.substr(0, end);
}

// An allocation that never launched (sacct 0:53, slurmrestd's JobLaunchFailure): the
// folder its user cannot enter now, if one is the cause.
void add_unreachable_folder(const std::string& out_dir, common::Failure& failure) {
  const bool never_launched = failure.evidence.find("0:53") != std::string::npos ||
                              failure.evidence.find("JobLaunchFailure") != std::string::npos;
  if (!never_launched) return;
  if (Status reachable = check_reachable_by_owner(out_dir); !reachable) {
    failure.evidence += "; now " + reachable.message();
  }
}

// A hang: the watchdog's stacks say which rank the others waited for.
void add_ranks_not_arrived(const std::string& out_dir, int world_size, common::Failure& failure) {
  std::vector<common::RankStacks> stacks;
  for (int rank = 0; rank < world_size; ++rank) {
    std::ifstream file(out_dir + "/stacks/rank" + std::to_string(rank) + ".txt");
    if (!file) continue;
    std::ostringstream text;
    text << file.rdbuf();
    stacks.push_back({rank, text.str()});
  }
  if (std::string missing = common::ranks_not_in_collective(stacks); !missing.empty()) {
    failure.evidence += "; " + missing;
  }
}

}  // namespace

std::vector<common::LogTail> read_run_log_tails(const common::JobStatus& status,
                                                const std::string& out_dir,
                                                const std::string& job_id, int world_size) {
  std::vector<common::LogTail> tails;
  const std::optional<double> ended = end_time(status);
  for (int rank = 0; rank < world_size; ++rank) {
    add_tail(run_layout::rank_log_path(out_dir, rank), run_layout::rank_log_name(rank), ended,
             tails);
  }
  // The launcher's own words (a local run's; under SLURM they are in slurm-<job>.out).
  add_tail(out_dir + "/launch.log", "launch.log", ended, tails);
  const std::string number = allocation_number(job_id);
  if (!number.empty()) {
    for (const char* suffix : {".out", ".err"}) {
      const std::string name = "slurm-" + number + suffix;
      add_tail(out_dir + "/" + name, name, ended, tails);
    }
  }
  return tails;
}

common::Failure classify_attempt(const common::JobStatus& status, const std::string& out_dir,
                                 const std::string& job_id, int world_size,
                                 const common::TimeLimit& limit) {
  common::Failure failure = common::classify_failure(
      status, read_run_log_tails(status, out_dir, job_id, world_size), limit);
  if (failure.kind == common::FailureClass::kSetup) {
    add_unreachable_folder(out_dir, failure);
  } else if (failure.kind == common::FailureClass::kHang) {
    add_ranks_not_arrived(out_dir, world_size, failure);
  }
  return failure;
}

}  // namespace scalestudy::campaign
