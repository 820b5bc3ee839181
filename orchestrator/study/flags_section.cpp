#include "orchestrator/study/flags_section.hpp"

#include <algorithm>
#include <optional>

#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kFlagsKeys = {"form", "booleans", "names"};
const std::vector<std::string> kClassicStyles = {"dashes", "underscores"};
constexpr const char* kPositional = "positional";
constexpr const char* kNotPassed = "none";

std::optional<size_t> read_choice(const ConfigNode& node, const std::string& field,
                                  const std::string& what, const std::vector<std::string>& choices,
                                  Diagnostics& diagnostics) {
  auto found = std::find(choices.begin(), choices.end(), node.scalar);
  if (!node.is_scalar() || found == choices.end()) {
    diagnostics.add_unknown(node.location, field, what, node.is_scalar() ? node.scalar : "",
                            choices);
    return std::nullopt;
  }
  return static_cast<size_t>(found - choices.begin());
}

void read_form(const ConfigNode& node, const std::string& field, WorkloadInvocation& invocation,
               Diagnostics& diagnostics) {
  if (auto index = read_choice(node, field, "flag form", flag_form_names(), diagnostics)) {
    invocation.flag_form = static_cast<FlagForm>(*index);
  }
}

// A name as the program spells it: one word, no '=' (the forms add it), or `positional`.
void read_names(const ConfigNode& names, WorkloadInvocation& invocation, Diagnostics& diagnostics) {
  if (!expect_map(names, "workload.flags.names", diagnostics)) return;
  for (const auto& entry : names.entries) {
    const std::string field = "workload.flags.names." + entry.key;
    const ConfigNode& value = entry.value;
    const bool one_word = value.is_scalar() && !value.scalar.empty() &&
                          std::none_of(value.scalar.begin(), value.scalar.end(), [](char c) {
                            return static_cast<unsigned char>(c) <= 0x20 || c == '=' || c == 0x7f;
                          });
    if (!one_word) {
      diagnostics.add(value.location, field,
                      "expected the name the program knows the parameter by (one word without "
                      "'=', such as model.n_layer or +seed), positional, or none (not passed)");
    } else if (value.scalar == kPositional) {
      invocation.positional.push_back(entry.key);
    } else if (value.scalar == kNotPassed) {
      invocation.not_passed.push_back(entry.key);
    } else {
      invocation.flag_names[entry.key] = value.scalar;
    }
  }
}

void read_flags_map(const ConfigNode& flags, WorkloadInvocation& invocation,
                    Diagnostics& diagnostics) {
  check_keys(flags, "workload.flags.", kFlagsKeys, diagnostics);
  if (const ConfigNode* form = flags.find("form")) {
    read_form(*form, "workload.flags.form", invocation, diagnostics);
  }
  if (const ConfigNode* booleans = flags.find("booleans")) {
    if (auto index = read_choice(*booleans, "workload.flags.booleans", "boolean form",
                                 boolean_form_names(), diagnostics)) {
      invocation.booleans = static_cast<BooleanForm>(*index);
      if (invocation.booleans == BooleanForm::kSwitch && invocation.flag_form == FlagForm::kHydra) {
        diagnostics.add(booleans->location, "workload.flags.booleans",
                        "Hydra overrides have no switches: a boolean is key=true or key=false "
                        "(booleans: words)");
      }
    }
  }
  if (const ConfigNode* names = flags.find("names")) read_names(*names, invocation, diagnostics);
}

}  // namespace

void read_flags_setting(const ConfigEntry& entry, WorkloadInvocation& invocation,
                        Diagnostics& diagnostics) {
  const ConfigNode& value = entry.value;
  if (entry.key == "flag_style") {
    if (auto index =
            read_choice(value, "workload.flag_style", "flag style", kClassicStyles, diagnostics)) {
      invocation.flag_form = static_cast<FlagForm>(*index);
    }
  } else if (value.is_map()) {
    read_flags_map(value, invocation, diagnostics);
  } else {
    read_form(value, "workload.flags", invocation, diagnostics);
  }
}

void check_flag_names(const ConfigNode& workload, const WorkloadInvocation& invocation,
                      const std::map<std::string, SourceLocation>& params,
                      Diagnostics& diagnostics) {
  const ConfigNode* flags = workload.find("flags");
  if (const ConfigNode* style = workload.find("flag_style"); style && flags) {
    diagnostics.add(style->location, "workload.flag_style",
                    "is the older spelling of workload.flags; give one of them");
  }
  const ConfigNode* names = flags && flags->is_map() ? flags->find("names") : nullptr;
  if (!names || !names->is_map()) return;
  for (const auto& entry : names->entries) {
    const std::string field = "workload.flags.names." + entry.key;
    if (entry.key != "batch_size" && params.count(entry.key) == 0) {
      diagnostics.add(entry.key_location, field, "names no parameter of the workload");
    } else if (entry.value.scalar == kPositional && invocation.env_params.count(entry.key)) {
      diagnostics.add(entry.value.location, field,
                      "is passed as an environment variable (workload.env_params), not a word");
    }
  }
}

}  // namespace scalestudy
