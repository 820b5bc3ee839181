#include "orchestrator/sched/py_spy_lookup.hpp"

#include <unistd.h>

#include <cstdlib>

#include "orchestrator/common/process_runner.hpp"

namespace scalestudy::sched {

std::string submitter_py_spy() {
  if (auto found = common::find_on_path("py-spy")) return *found;
  const char* venv = std::getenv("SCALESTUDY_PYTHON_VENV");
  const std::string candidate =
      std::string(venv != nullptr && *venv != '\0' ? venv : SCALESTUDY_PYTHON_VENV_DIR) +
      "/bin/py-spy";
  return access(candidate.c_str(), X_OK) == 0 ? candidate : "";
}

}  // namespace scalestudy::sched
