// WorkloadFlags: what a workload binary says about its flags when asked with
// `--describe-flags json` (name, type, range or choices, default; see harness/train/flags),
// and the check of a study's parameters against it: every parameter of every run must be
// a flag the binary declares, with a value its rule accepts. Errors point at where the
// study wrote the value (file:line:column). Pure functions; running the binary is the
// caller's part.
#pragma once

#include <map>
#include <string>

#include "harness/core/flag_rule.hpp"
#include "harness/core/status.hpp"
#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/study/study.hpp"

namespace scalestudy {

struct WorkloadFlags {
  std::string workload;                   // the binary's own name for itself ("train")
  std::string git_commit;                 // the commit it was built from; empty: not said
  std::map<std::string, FlagRule> rules;  // by flag name, with dashes ("steps-per-epoch")
};

Result<WorkloadFlags> parse_workload_flags_json(const std::string& json_text);

// Checks the runs of `study` whose RunSpec::workload is `workload_binary`; errors go to
// `diagnostics`, each parameter value reported once.
void check_workload_params(const Study& study, const std::string& workload_binary,
                           const WorkloadFlags& flags, Diagnostics& diagnostics);

}  // namespace scalestudy
