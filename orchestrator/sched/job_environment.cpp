#include "orchestrator/sched/job_environment.hpp"

#include <algorithm>

#include "orchestrator/study/secret_names.hpp"

extern char** environ;

namespace scalestudy::sched {

Environment current_environment() {
  Environment environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const size_t equals = text.find('=');
    if (equals != std::string::npos && equals > 0) {
      environment.emplace(text.substr(0, equals), text.substr(equals + 1));
    }
  }
  return environment;
}

std::vector<std::string> passthrough_names(const std::vector<const PreparedRun*>& runs) {
  std::vector<std::string> names;
  for (const PreparedRun* run : runs) {
    for (const std::string& name : run->spec.env_passthrough) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::string sbatch_export_list(const std::vector<const PreparedRun*>& runs,
                               const Environment& submitter) {
  std::vector<std::string> names;
  for (const auto& [name, value] : submitter) {
    // A comma would split the list; such names are no shell variables anyway.
    if (!looks_secret(name) && name.find(',') == std::string::npos) names.push_back(name);
  }
  for (const std::string& name : passthrough_names(runs)) {
    if (submitter.count(name) && looks_secret(name)) names.push_back(name);
  }
  if (names.empty()) return "NONE";
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) list += (i ? "," : "") + names[i];
  return list;
}

Environment rest_job_environment(const std::vector<const PreparedRun*>& runs,
                                 const Environment& submitter) {
  Environment environment = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
  std::vector<std::string> names = {"PATH", "LD_LIBRARY_PATH", "SLURM_CONF", "LANG"};
  for (const std::string& name : passthrough_names(runs)) names.push_back(name);
  for (const std::string& name : names) {
    if (auto found = submitter.find(name); found != submitter.end()) {
      environment[name] = found->second;
    }
  }
  return environment;
}

}  // namespace scalestudy::sched
