#include "orchestrator/submission/workload_param_check.hpp"

#include <unistd.h>

#include <fstream>
#include <set>
#include <utility>

#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/study/workload_flags.hpp"
#include "orchestrator/submission/flag_description_cache.hpp"

namespace scalestudy::submission {
namespace {

constexpr char kDescribeFlag[] = "--describe-flags";
constexpr int kDescribeTimeoutMs = 30'000;

// Whether the file's bytes contain `--describe-flags` (read in overlapping chunks).
bool mentions_describe_flag(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string needle = kDescribeFlag;
  std::string window;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    window.append(chunk, static_cast<size_t>(in.gcount()));
    if (window.find(needle) != std::string::npos) return true;
    window.erase(0, window.size() - (needle.size() - 1));
  }
  return false;
}

// The program's answer to `--describe-flags json`, or why it cannot tell its flags.
Result<std::string> ask_flags(const std::string& path) {
  if (!mentions_describe_flag(path)) {
    return Status::error(std::string("it does not describe its flags (") + kDescribeFlag +
                         " json)");
  }
  common::ProcessRequest request;
  request.argv = {path, kDescribeFlag, "json"};
  request.timeout_ms = kDescribeTimeoutMs;
  auto answer = common::run_process(request);
  if (!answer) return answer.status();
  if (!answer->succeeded()) {
    return common::command_error(request.argv, *answer);
  }
  return std::move(answer->stdout_text);
}

// The program's flags, remembered per binary content in `cache_dir`, or why it cannot tell
// them.
Result<WorkloadFlags> describe(const std::string& path, const std::string& cache_dir) {
  if (access(path.c_str(), X_OK) != 0) return Status::error("not found or not executable");
  return cached_flag_description(cache_dir, path, [&path] { return ask_flags(path); });
}

}  // namespace

WorkloadParamCheck check_study_workload_params(const Study& study, const std::string& bin_dir) {
  WorkloadParamCheck check;
  std::set<std::string> binaries;
  for (const RunSpec& run : study.runs) binaries.insert(run.workload);
  Diagnostics diagnostics;
  const std::string cache_dir = default_flag_description_cache_dir();
  for (const std::string& binary : binaries) {
    const std::string path = resolve_workload_binary(binary, bin_dir);
    auto flags = describe(path, cache_dir);
    if (!flags) {
      check.notes.push_back(path + ": parameters passed unchecked: " + flags.status().message());
      continue;
    }
    check.git_commits[path] = flags->git_commit;
    scalestudy::check_workload_params(study, binary, *flags, diagnostics);
  }
  check.errors = diagnostics.to_status();
  return check;
}

}  // namespace scalestudy::submission
