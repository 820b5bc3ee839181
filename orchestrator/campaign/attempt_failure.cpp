#include "orchestrator/campaign/attempt_failure.hpp"

#include <cctype>
#include <deque>
#include <fstream>

#include "harness/core/run_layout.hpp"

namespace scalestudy::campaign {
namespace {

// Enough for a traceback and what the ranks said around it; the rest of a log is the
// run's progress.
constexpr size_t kTailLines = 60;

void add_tail(const std::string& path, const std::string& name,
              std::vector<common::LogTail>& tails) {
  std::ifstream file(path);
  if (!file) return;
  std::deque<std::string> last;
  for (std::string line; std::getline(file, line);) {
    last.push_back(std::move(line));
    if (last.size() > kTailLines) last.pop_front();
  }
  tails.push_back({name, {last.begin(), last.end()}});
}

// The allocation's number: "123" of "123", "123_4" (an array task) or "123+<run>" (a packed
// run), which names the job's own slurm-<n>.out.
std::string allocation_number(const std::string& job_id) {
  size_t end = 0;
  while (end < job_id.size() && std::isdigit(static_cast<unsigned char>(job_id[end]))) ++end;
  return job_id.substr(0, end);
}

}  // namespace

std::vector<common::LogTail> read_run_log_tails(const std::string& out_dir,
                                                const std::string& job_id, int world_size) {
  std::vector<common::LogTail> tails;
  for (int rank = 0; rank < world_size; ++rank) {
    add_tail(run_layout::rank_log_path(out_dir, rank), run_layout::rank_log_name(rank), tails);
  }
  const std::string number = allocation_number(job_id);
  if (!number.empty()) {
    for (const char* suffix : {".out", ".err"}) {
      const std::string name = "slurm-" + number + suffix;
      add_tail(out_dir + "/" + name, name, tails);
    }
  }
  return tails;
}

common::Failure classify_attempt(const common::JobStatus& status, const std::string& out_dir,
                                 const std::string& job_id, int world_size) {
  return common::classify_failure(status, read_run_log_tails(out_dir, job_id, world_size));
}

}  // namespace scalestudy::campaign
