#include "orchestrator/study/workload_command_line.hpp"

#include <algorithm>
#include <cctype>

#include "orchestrator/study/workload_params.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kFlagForms = {"dashes", "underscores", "equals", "hydra"};
const std::vector<std::string> kBooleanForms = {"words", "switch", "python"};

// The parameter's name as the program knows it: the study's override, or the parameter
// itself (with dashes for its '_' in the dashes form).
std::string program_name(const WorkloadInvocation& invocation, const std::string& param) {
  if (auto named = invocation.flag_names.find(param); named != invocation.flag_names.end()) {
    return named->second;
  }
  std::string name = param;
  if (invocation.flag_form == FlagForm::kDashes) std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

// "--name", or the name as written when it carries its own dashes ("-v").
std::string dashed(const std::string& name) {
  return name.rfind('-', 0) == 0 ? name : "--" + name;
}

// "--no-name" for "--name" (or "-no-v" for "-v").
std::string negated(const std::string& flag) {
  const size_t dashes = flag.find_first_not_of('-');
  return flag.substr(0, dashes) + "no-" + flag.substr(dashes);
}

bool is_plain_hydra_value(const std::string& value) {
  return !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_-+./@%:").find(c) != std::string_view::npos;
  });
}

// A value as Hydra's override grammar reads it back unchanged: plain words as they are,
// anything else (spaces, commas, brackets, quotes, '=') single-quoted, with a quote and the
// backslashes right before a quote (or before the closing one) escaped.
std::string hydra_value(const std::string& value) {
  if (is_plain_hydra_value(value)) return value;
  std::string quoted = "'";
  size_t backslashes = 0;
  for (char c : value) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    quoted.append(c == '\'' ? 2 * backslashes : backslashes, '\\');
    backslashes = 0;
    if (c == '\'') quoted += '\\';
    quoted += c;
  }
  quoted.append(2 * backslashes, '\\');
  return quoted + "'";
}

std::vector<std::string> flag_group(const WorkloadInvocation& invocation, const std::string& name,
                                    std::string value) {
  if (invocation.booleans == BooleanForm::kPython && (value == "true" || value == "false")) {
    value = value == "true" ? "True" : "False";
  }
  if (invocation.flag_form == FlagForm::kHydra) return {name + "=" + hydra_value(value)};
  const std::string flag = dashed(name);
  if (invocation.booleans == BooleanForm::kSwitch && (value == "true" || value == "false")) {
    return {value == "true" ? flag : negated(flag)};
  }
  if (invocation.flag_form == FlagForm::kEquals) return {flag + "=" + value};
  return {flag, value};
}

}  // namespace

const char* flag_form_name(FlagForm form) {
  return kFlagForms[static_cast<size_t>(form)].c_str();
}
const char* boolean_form_name(BooleanForm form) {
  return kBooleanForms[static_cast<size_t>(form)].c_str();
}
const std::vector<std::string>& flag_form_names() {
  return kFlagForms;
}
const std::vector<std::string>& boolean_form_names() {
  return kBooleanForms;
}

std::string with_run_dir(const std::string& text, const std::string& run_dir) {
  std::string result = text;
  const std::string reference = kRunDirReference;
  for (size_t at = result.find(reference); at != std::string::npos;
       at = result.find(reference, at + run_dir.size())) {
    result.replace(at, reference.size(), run_dir);
  }
  return result;
}

std::vector<std::vector<std::string>> workload_flag_groups(const RunSpec& spec,
                                                           const std::string& out_dir) {
  const WorkloadInvocation& invocation = spec.invocation;
  const std::map<std::string, std::string> params = workload_params(spec);
  std::vector<std::vector<std::string>> groups;
  for (const auto& param : invocation.positional) {
    if (auto value = params.find(param); value != params.end()) {
      groups.push_back({with_run_dir(value->second, out_dir)});
    }
  }
  if (invocation.run_flags) {
    groups.push_back(flag_group(invocation, program_name(invocation, "run_id"), spec.run_id));
    groups.push_back(flag_group(invocation, program_name(invocation, "out_dir"), out_dir));
  }
  for (const auto& [param, value] : params) {  // std::map: sorted by name
    auto listed = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), param) != names.end();
    };
    if (invocation.env_params.count(param) || listed(invocation.positional) ||
        listed(invocation.not_passed)) {
      continue;
    }
    groups.push_back(
        flag_group(invocation, program_name(invocation, param), with_run_dir(value, out_dir)));
  }
  return groups;
}

std::map<std::string, std::string> workload_environment(const RunSpec& spec,
                                                        const std::string& out_dir) {
  std::map<std::string, std::string> environment;
  for (const auto& [name, value] : spec.env) environment[name] = with_run_dir(value, out_dir);
  const std::map<std::string, std::string> params = workload_params(spec);
  for (const auto& [param, variable] : spec.invocation.env_params) {
    if (auto value = params.find(param); value != params.end()) {
      environment[variable] = with_run_dir(value->second, out_dir);
    }
  }
  return environment;
}

}  // namespace scalestudy
