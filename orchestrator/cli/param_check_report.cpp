#include "orchestrator/cli/param_check_report.hpp"

#include <cstdio>

namespace scalestudy::cli {

bool report_workload_param_check(const char* command, const submission::WorkloadParamCheck& check) {
  for (const auto& note : check.notes) {
    std::fprintf(stderr, "scalestudy %s: note: %s\n", command, note.c_str());
  }
  if (check.errors) return true;
  std::fprintf(stderr, "%s\n", check.errors.message().c_str());
  return false;
}

}  // namespace scalestudy::cli
