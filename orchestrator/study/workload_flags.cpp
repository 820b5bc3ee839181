#include "orchestrator/study/workload_flags.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "orchestrator/study/workload_params.hpp"

namespace scalestudy {
namespace {

// The flag a study parameter becomes: underscores are dashes (`steps_per_epoch`).
std::string flag_of(const std::string& param) {
  std::string flag = param;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

Result<FlagRule> parse_rule(const nlohmann::json& entry) {
  FlagRule rule;
  auto type = parse_flag_type(entry.value("type", "text"));
  if (!type) return Status::error("unknown flag type '" + entry.value("type", "") + "'");
  rule.type = *type;
  if (entry.contains("min") && entry["min"].is_number()) rule.min = entry["min"].get<double>();
  if (entry.contains("max") && entry["max"].is_number()) rule.max = entry["max"].get<double>();
  if (entry.contains("choices") && entry["choices"].is_array()) {
    for (const auto& choice : entry["choices"]) {
      if (!choice.is_string()) return Status::error("a choice is not a string");
      rule.choices.push_back(choice.get<std::string>());
    }
  }
  return rule;
}

// Where the study wrote `value` for `param`; the parameter's first value, or the study
// file, when the value came from a ${} substitution.
SourceLocation location_of(const Study& study, const std::string& param, const std::string& value) {
  auto values = study.param_value_locations.find(param);
  if (values != study.param_value_locations.end() && !values->second.empty()) {
    auto exact = values->second.find(value);
    return exact != values->second.end() ? exact->second : values->second.begin()->second;
  }
  return SourceLocation{std::make_shared<const std::string>(study.source_path), 0, 0};
}

}  // namespace

Result<WorkloadFlags> parse_workload_flags_json(const std::string& json_text) {
  auto document = nlohmann::json::parse(json_text, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains("flags") ||
      !document["flags"].is_array()) {
    return Status::error("not a --describe-flags json answer (an object with a \"flags\" list)");
  }
  WorkloadFlags flags;
  flags.workload = document.value("workload", "");
  if (document.contains("git_commit") && document["git_commit"].is_string()) {
    flags.git_commit = document["git_commit"].get<std::string>();
  }
  for (const auto& entry : document["flags"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
      return Status::error("a flag without a name");
    }
    const std::string name = entry["name"].get<std::string>();
    auto rule = parse_rule(entry);
    if (!rule) return rule.status().with_context("flag --" + name);
    flags.rules[name] = std::move(rule).value();
  }
  return flags;
}

void check_workload_params(const Study& study, const std::string& workload_binary,
                           const WorkloadFlags& flags, Diagnostics& diagnostics) {
  // Suggestions are spelled as a study writes parameters (underscores).
  std::vector<std::string> param_names;
  for (const auto& [name, rule] : flags.rules) {
    std::string param = name;
    std::replace(param.begin(), param.end(), '-', '_');
    param_names.push_back(param);
  }
  std::set<std::pair<std::string, std::string>> checked;  // (param, value)
  for (const RunSpec& run : study.runs) {
    if (run.workload != workload_binary) continue;
    for (const auto& [param, value] : workload_params(run)) {
      if (!checked.emplace(param, value).second) continue;
      const std::string field = "workload." + param;
      const SourceLocation where = location_of(study, param, value);
      auto rule = flags.rules.find(flag_of(param));
      if (rule == flags.rules.end()) {
        diagnostics.add_unknown(where, field, "parameter of " + workload_binary, param,
                                param_names);
        continue;
      }
      if (auto problem = rule->second.problem_with(value)) {
        diagnostics.add(where, field, "--" + rule->first + ": " + *problem);
      }
    }
  }
}

}  // namespace scalestudy
