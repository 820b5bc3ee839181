// Checks a study's workload parameters before plan, validate, submit or run go on: each
// workload binary that can describe its flags (`--describe-flags json`) is asked once (its
// answer is remembered per binary content: submission/flag_description_cache), and every
// parameter of every run is checked against its answer (study/workload_flags). A program that
// cannot describe itself (a user's own script, a binary not built yet) is passed through
// unchecked, with a note saying so. Only files that mention "--describe-flags" are run, so a
// user's script is never started by a check.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy::submission {

struct WorkloadParamCheck {
  Status errors;                   // every bad parameter, "file:line:column: field ...: ..."
  std::vector<std::string> notes;  // the programs left unchecked, and why
  // Each workload binary's path and, when it says, the git commit it was built from.
  std::map<std::string, std::string> git_commits;
};

// `bin_dir` resolves bare workload names as the schedulers do.
WorkloadParamCheck check_study_workload_params(const Study& study, const std::string& bin_dir);

}  // namespace scalestudy::submission
