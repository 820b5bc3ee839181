#include "orchestrator/study/environment_section.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "orchestrator/study/references.hpp"
#include "orchestrator/study/run_spec_names.hpp"
#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"
#include "orchestrator/study/secret_names.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kContainerKeys = {"image", "binds"};

bool is_module_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("._/+-@:").find(c) != std::string_view::npos;
  });
}

bool is_profile_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

void read_launcher(const ConfigNode& launcher, RunSpec& shared, Diagnostics& diagnostics) {
  auto text = read_scalar(launcher, "launcher", diagnostics);
  if (!text) return;
  if (auto parsed = parse_launcher(*text)) {
    shared.launcher = *parsed;
  } else {
    diagnostics.add_unknown(launcher.location, "launcher", "launcher", *text, {"srun", "torchrun"});
  }
}

void read_modules(const ConfigNode& modules, const std::string& prefix, StudyTemplate& study,
                  Diagnostics& diagnostics) {
  std::vector<std::string>& names = study.shared.modules;
  for (const ConfigNode* item :
       read_list(modules, prefix + "modules", diagnostics, SingleValue::kListOfOne)) {
    std::string field = indexed_field(prefix + "modules", names.size());
    auto text = read_scalar(*item, field, diagnostics);
    if (!text) continue;
    if (!has_reference(*text) && !is_module_name(*text)) {
      diagnostics.add(item->location, field,
                      "'" + *text + "' is not a module name (letters, digits and . _ / + - @ :)");
      continue;
    }
    remember_setting(field, *item, *text, study.field_locations, diagnostics);
    names.push_back(*text);
  }
}

void read_container(const ConfigNode& container, const std::string& prefix, StudyTemplate& study,
                    Diagnostics& diagnostics) {
  const std::string field = prefix + "container";
  if (!expect_map(container, field, diagnostics)) return;
  check_keys(container, field + ".", kContainerKeys, diagnostics);
  Container& target = study.shared.container;
  if (const ConfigNode* image = container.find("image")) {
    if (auto text = read_line_scalar(*image, field + ".image", diagnostics)) {
      if (text->empty()) diagnostics.add(image->location, field + ".image", "may not be empty");
      target.image = *text;
      remember_setting(field + ".image", *image, *text, study.field_locations, diagnostics);
    }
  } else {
    diagnostics.add(container.location, field + ".image", "missing: the apptainer image to run");
  }
  const ConfigNode* binds = container.find("binds");
  if (!binds) return;
  for (const ConfigNode* item :
       read_list(*binds, field + ".binds", diagnostics, SingleValue::kListOfOne)) {
    std::string item_field = indexed_field(field + ".binds", target.binds.size());
    if (auto text = read_line_scalar(*item, item_field, diagnostics)) {
      remember_setting(item_field, *item, *text, study.field_locations, diagnostics);
      target.binds.push_back(*text);
    }
  }
}

void read_env(const ConfigNode& env, const std::string& prefix, StudyTemplate& study,
              Diagnostics& diagnostics) {
  if (!expect_map(env, prefix + "env", diagnostics)) return;
  for (const auto& entry : env.entries) {
    std::string field = prefix + "env." + entry.key;
    if (!is_identifier(entry.key)) {
      diagnostics.add(entry.key_location, field,
                      "'" + entry.key + "' is not a valid environment variable name");
      continue;
    }
    if (looks_secret(entry.key)) {
      diagnostics.add(entry.key_location, field,
                      "'" + entry.key +
                          "' looks like a secret, whose value is never stored in a study, job "
                          "script or database: list it under env_passthrough and export it "
                          "before submitting");
      continue;
    }
    if (auto text = read_scalar(entry.value, field, diagnostics)) {
      remember_setting(field, entry.value, *text, study.field_locations, diagnostics);
      study.shared.env[entry.key] = *text;
    }
  }
}

// Names only: each job receives their values from the submitter's environment.
void read_env_passthrough(const ConfigNode& names, StudyTemplate& study, Diagnostics& diagnostics) {
  std::vector<std::string>& passthrough = study.shared.env_passthrough;
  for (const ConfigNode* item :
       read_list(names, "env_passthrough", diagnostics, SingleValue::kListOfOne)) {
    const std::string field = indexed_field("env_passthrough", passthrough.size());
    auto name = read_line_scalar(*item, field, diagnostics);
    if (!name) continue;
    if (!is_identifier(*name)) {
      diagnostics.add(item->location, field,
                      "'" + *name + "' is not a valid environment variable name");
    } else if (study.shared.env.count(*name)) {
      diagnostics.add(item->location, field,
                      "'" + *name + "' is also set under env: give it one place");
    } else if (std::find(passthrough.begin(), passthrough.end(), *name) == passthrough.end()) {
      passthrough.push_back(*name);
    }
  }
}

void read_profile(const ConfigNode& profile, RunSpec& shared, Diagnostics& diagnostics) {
  auto text = read_scalar(profile, "profile", diagnostics);
  if (!text) return;
  if (!is_profile_name(*text)) {
    diagnostics.add(profile.location, "profile",
                    "'" + *text + "' is not a profile name (a file in profiles/, without .yaml)");
  }
  shared.profile = *text;
}

}  // namespace

void read_runtime_fields(const ConfigNode& map, const std::string& prefix, StudyTemplate& study,
                         Diagnostics& diagnostics) {
  if (const ConfigNode* modules = map.find("modules")) {
    read_modules(*modules, prefix, study, diagnostics);
  }
  if (const ConfigNode* container = map.find("container")) {
    read_container(*container, prefix, study, diagnostics);
  }
  if (const ConfigNode* env = map.find("env")) read_env(*env, prefix, study, diagnostics);
}

void read_environment_section(const ConfigNode& document, StudyTemplate& study,
                              Diagnostics& diagnostics) {
  if (const ConfigNode* launcher = document.find("launcher")) {
    read_launcher(*launcher, study.shared, diagnostics);
  }
  read_runtime_fields(document, "", study, diagnostics);
  if (const ConfigNode* passthrough = document.find("env_passthrough")) {
    read_env_passthrough(*passthrough, study, diagnostics);
  }
  if (const ConfigNode* profile = document.find("profile")) {
    read_profile(*profile, study.shared, diagnostics);
  }
}

}  // namespace scalestudy
