#include "orchestrator/study/workload_section.hpp"

#include <algorithm>
#include <cctype>

#include "orchestrator/study/flags_section.hpp"
#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"
#include "orchestrator/study/study_variables.hpp"
#include "orchestrator/study/workload_files.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kInvocationKeys = {"args", "flags", "flag_style", "env_params",
                                                  "run_flags"};

void read_args(const ConfigNode& node, WorkloadInvocation& invocation, Diagnostics& diagnostics) {
  if (!node.is_sequence()) {
    diagnostics.add(node.location, "workload.args",
                    std::string("expected a list of arguments, got a ") + node.type_name());
    return;
  }
  for (size_t i = 0; i < node.items.size(); ++i) {
    const ConfigNode& item = node.items[i];
    const std::string field = "workload.args[" + std::to_string(i) + "]";
    if (!item.is_scalar() || has_control_character(item.scalar)) {
      diagnostics.add(item.location, field, "expected one argument on one line");
      continue;
    }
    invocation.args.push_back(item.scalar);
  }
}

void read_env_params(const ConfigNode& node, WorkloadInvocation& invocation,
                     Diagnostics& diagnostics) {
  if (!node.is_map()) {
    diagnostics.add(node.location, "workload.env_params",
                    std::string("expected a map parameter: VARIABLE, got a ") + node.type_name());
    return;
  }
  for (const auto& entry : node.entries) {
    const std::string field = "workload.env_params." + entry.key;
    if (!entry.value.is_scalar() || !is_identifier(entry.value.scalar)) {
      diagnostics.add(entry.value.location, field,
                      "expected an environment variable name (letters, digits, '_')");
      continue;
    }
    invocation.env_params[entry.key] = entry.value.scalar;
  }
}

bool is_invocation_key(const std::string& key) {
  return std::find(kInvocationKeys.begin(), kInvocationKeys.end(), key) != kInvocationKeys.end();
}

void read_invocation_entry(const ConfigEntry& entry, WorkloadInvocation& invocation,
                           Diagnostics& diagnostics) {
  const std::string field = "workload." + entry.key;
  const ConfigNode& value = entry.value;
  if (entry.key == "args") {
    read_args(value, invocation, diagnostics);
  } else if (entry.key == "env_params") {
    read_env_params(value, invocation, diagnostics);
  } else if (entry.key == "flags" || entry.key == "flag_style") {
    read_flags_setting(entry, invocation, diagnostics);
  } else if (entry.key == "run_flags") {
    const std::string text = value.is_scalar() ? canonical_scalar(value.scalar, value.quoted) : "";
    if (text == "true" || text == "false") {
      invocation.run_flags = text == "true";
    } else {
      diagnostics.add(value.location, field, "expected true or false");
    }
  }
}

// A parameter of the workload: an identifier the harness does not set itself. run_id and
// out_dir are the program's own when scalestudy does not pass its --run-id/--out-dir.
void read_param(const ConfigEntry& entry, bool run_flags, StudyTemplate& study,
                Diagnostics& diagnostics) {
  const std::string field = "workload." + entry.key;
  auto text = read_scalar(entry.value, field, diagnostics);
  if (!text) return;
  if (!is_identifier(entry.key)) {
    diagnostics.add(entry.key_location, field,
                    "parameter names are identifiers (letters, digits, '_'): they become "
                    "--flags of the workload");
    return;
  }
  if (is_reserved_param(entry.key) && (run_flags || !is_run_flag_param(entry.key))) {
    std::string why = "is set by scalestudy itself";
    if (entry.key == "batch_size") {
      why = "set the batch with global_batch (strong) or per_gpu_batch (weak)";
    } else if (is_run_flag_param(entry.key)) {
      why += " (--" + entry.key + "); with run_flags: false it is the program's own";
    }
    diagnostics.add(entry.key_location, field, why);
    return;
  }
  check_reference_syntax(entry.value, field, *text, diagnostics);
  study.params[entry.key] = {*text, entry.value.location};
}

void read_binary(const ConfigNode& binary, StudyTemplate& study, Diagnostics& diagnostics) {
  auto text = read_scalar(binary, "workload.binary", diagnostics);
  if (!text) return;
  if (text->empty() || has_control_character(*text)) {
    diagnostics.add(binary.location, "workload.binary",
                    "expected a program name or path on one line");
  }
  study.binary = {*text, binary.location};
  remember_setting("workload.binary", binary, *text, study.field_locations, diagnostics);
}

}  // namespace

void read_workload_section(const ConfigNode& workload, StudyTemplate& study,
                           Diagnostics& diagnostics) {
  if (!expect_map(workload, "workload", diagnostics)) return;
  const ConfigNode* run_flags = workload.find("run_flags");
  const bool passes_run_flags = !run_flags || !run_flags->is_scalar() ||
                                canonical_scalar(run_flags->scalar, run_flags->quoted) != "false";
  for (const auto& entry : workload.entries) {
    if (is_invocation_key(entry.key)) {
      read_invocation_entry(entry, study.shared.invocation, diagnostics);
    } else if (entry.key == "binary") {
      read_binary(entry.value, study, diagnostics);
    } else if (entry.key == "files") {
      read_workload_files(entry.value, study, diagnostics);
    } else {
      read_param(entry, passes_run_flags, study, diagnostics);
    }
  }
  for (const auto& [param, variable] : study.shared.invocation.env_params) {
    if (param != "batch_size" && study.params.count(param) == 0) {
      diagnostics.add(workload.find("env_params")->location, "workload.env_params." + param,
                      "names no parameter of the workload");
    }
  }
  std::map<std::string, SourceLocation> params;
  for (const auto& [name, value] : study.params) params.emplace(name, value.location);
  check_flag_names(workload, study.shared.invocation, params, diagnostics);
}

}  // namespace scalestudy
