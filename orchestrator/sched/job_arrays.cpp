#include "orchestrator/sched/job_arrays.hpp"

#include <fstream>
#include <map>
#include <sstream>

#include "orchestrator/sched/render/shell_quote.hpp"

namespace scalestudy::sched {
namespace {

bool names_single_run(const std::string& option) {
  static const char* kPerRun[] = {"--job-name", "-J", "--output", "-o",
                                  "--error",    "-e", "--array",  "-a"};
  std::string key = option.substr(0, option.find('='));
  for (const char* per_run : kPerRun) {
    if (key == per_run) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> sbatch_directives(const std::string& script_text) {
  std::vector<std::string> tokens;
  std::stringstream lines(script_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("#SBATCH", 0) != 0) continue;
    std::stringstream words(line.substr(7));
    for (std::string word; words >> word;) {
      if (word[0] == '#') break;  // a trailing comment
      tokens.push_back(word);
    }
  }
  return tokens;
}

std::vector<std::string> allocation_directives(const std::string& script_text) {
  std::vector<std::string> tokens = sbatch_directives(script_text);
  std::vector<std::string> directives;
  // "-J name" (option and value as two words) is skipped as a pair.
  for (size_t i = 0; i < tokens.size(); ++i) {
    bool separate_value = tokens[i].find('=') == std::string::npos && i + 1 < tokens.size() &&
                          tokens[i + 1][0] != '-';
    if (names_single_run(tokens[i])) {
      if (separate_value) ++i;
      continue;
    }
    directives.push_back(tokens[i]);
  }
  return directives;
}

std::vector<std::string> script_allocation_directives(const std::string& path) {
  std::ifstream script(path);
  std::stringstream text;
  text << script.rdbuf();
  return allocation_directives(text.str());
}

Result<std::vector<std::vector<size_t>>> group_by_shape(const std::vector<PreparedRun>& runs) {
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> group_of_shape;
  for (size_t index = 0; index < runs.size(); ++index) {
    std::ifstream script(runs[index].script_path);
    if (!script) {
      return Status::error(runs[index].script_path + ": cannot read the job script of run " +
                           runs[index].spec.run_id);
    }
    std::stringstream text;
    text << script.rdbuf();
    std::string shape;
    for (const auto& directive : allocation_directives(text.str())) shape += directive + '\n';
    auto [found, inserted] = group_of_shape.emplace(shape, groups.size());
    if (inserted) groups.emplace_back();
    groups[found->second].push_back(index);
  }
  return groups;
}

std::string array_wrapper_script(const std::vector<const PreparedRun*>& runs,
                                 const std::vector<std::string>& directives,
                                 const std::string& job_name, const std::string& output_pattern) {
  std::string script = "#!/bin/bash\n";
  script += "# scalestudy job array: task i runs the i-th run's rendered script.\n";
  script += "#SBATCH --job-name=" + job_name + "\n";
  script += "#SBATCH --output=" + output_pattern + "\n";
  for (const auto& directive : directives) script += "#SBATCH " + directive + "\n";
  script += "run_scripts=(\n";
  for (const PreparedRun* run : runs)
    script += "  " + scalestudy::shell_quote(run->script_path) + "\n";
  script += ")\nrun_dirs=(\n";
  for (const PreparedRun* run : runs) script += "  " + scalestudy::shell_quote(run->out_dir) + "\n";
  script += ")\n";
  script +=
      "task=${SLURM_ARRAY_TASK_ID:?not an array task}\n"
      "exec /bin/bash \"${run_scripts[$task]}\" "
      ">>\"${run_dirs[$task]}/slurm-${SLURM_ARRAY_JOB_ID}_${task}.out\" 2>&1\n";
  return script;
}

std::string array_option(size_t task_count, int throttle) {
  std::string option = "--array=0-" + std::to_string(task_count - 1);
  if (throttle > 0) option += "%" + std::to_string(throttle);
  return option;
}

std::string array_job_name(const PreparedRun& first) {
  return first.spec.study + "-array";
}

}  // namespace scalestudy::sched
