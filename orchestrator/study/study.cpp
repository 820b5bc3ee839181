#include "orchestrator/study/study.hpp"

#include <algorithm>
#include <filesystem>

#include "orchestrator/study/expansion.hpp"
#include "orchestrator/study/study_document.hpp"
#include "orchestrator/study/system_limits.hpp"
#include "orchestrator/study/systems_section.hpp"

namespace scalestudy {
namespace {

// The study document planned on one system (or on none); errors go to `diagnostics`. A
// system the study did not name (the one detected, or `local`) is only recorded: it
// changes nothing about the runs, so their ids and settings stay what they were.
Study plan_on(const ConfigNode& document, const StudySystem* system, Diagnostics& diagnostics) {
  StudyTemplate study_template = parse_study_template(document, diagnostics);
  if (!diagnostics.empty()) return {};
  if (system != nullptr) {
    study_template.shared.system = system->run;
    if (!system->run.named) {  // recorded only: neither its launcher nor its backend applies
      study_template.shared.system.srun_flags.clear();
      study_template.shared.system.scheduler_settings.clear();
    }
  }
  const LimitSources sources{study_template.scale, study_template.field_locations,
                             study_template.name_location};
  Study study = expand_study(std::move(study_template), diagnostics);
  if (system != nullptr && system->run.named && diagnostics.empty()) {
    check_system_limits(study.runs, sources, *system, diagnostics);
  }
  return study;
}

// The merged document keeps the study's positions wherever the study has the node, so an
// error about the study's own structure (a missing field) points into the study file.
void keep_study_locations(ConfigNode& merged, const ConfigNode& study) {
  merged.location = study.location;
  if (!merged.is_map() || !study.is_map()) return;
  for (const ConfigEntry& entry : study.entries) {
    if (ConfigNode* node = merged.find(entry.key)) keep_study_locations(*node, entry.value);
  }
}

// A named system's keys beneath the study's own; an unnamed one adds none.
ConfigNode on_system(const ConfigNode& document, const StudySystem& system) {
  if (!system.run.named) return document;
  ConfigNode merged = system.overlay;
  merge_config(merged, document);
  keep_study_locations(merged, document);
  return merged;
}

// One study of every system's runs; with several systems, `system` leads the varied keys.
Study join_systems(std::vector<Study> planned) {
  Study study = std::move(planned.front());
  for (size_t i = 1; i < planned.size(); ++i) {
    for (RunSpec& run : planned[i].runs) study.runs.push_back(std::move(run));
    for (const std::string& key : planned[i].varied_keys) {
      if (std::find(study.varied_keys.begin(), study.varied_keys.end(), key) ==
          study.varied_keys.end()) {
        study.varied_keys.push_back(key);
      }
    }
    for (auto& [param, values] : planned[i].param_value_locations) {
      study.param_value_locations[param].insert(values.begin(), values.end());
    }
  }
  if (planned.size() > 1) {
    study.varied_keys.insert(study.varied_keys.begin(), "system");
    for (RunSpec& run : study.runs) run.varied["system"] = run.system.label();
  }
  // A key that varies on one system only: the other systems' runs state their value too.
  for (RunSpec& run : study.runs) {
    for (const std::string& key : study.varied_keys) {
      if (run.varied.count(key)) continue;
      auto param = run.params.find(key);
      run.varied[key] = key == "world_size"         ? std::to_string(run.world_size)
                        : key == "nodes"            ? std::to_string(run.nodes)
                        : param != run.params.end() ? param->second
                                                    : "";
    }
  }
  return study;
}

Result<Study> build_study(Result<ConfigNode> loaded, const StudySystemChoice& choice) {
  if (!loaded) return loaded.status();
  ConfigNode document = std::move(loaded).value();
  Diagnostics diagnostics;
  std::vector<StudySystem> systems = take_study_systems(document, choice, diagnostics);
  if (!diagnostics.empty()) return diagnostics.to_status();
  if (systems.empty()) {
    Study study = plan_on(document, nullptr, diagnostics);
    if (!diagnostics.empty()) return diagnostics.to_status();
    return study;
  }
  std::vector<Study> planned;
  for (const StudySystem& system : systems) {
    Diagnostics on_this;
    planned.push_back(plan_on(on_system(document, system), &system, on_this));
    diagnostics.absorb(on_this);
  }
  if (!diagnostics.empty()) return diagnostics.to_status();
  // On named systems `system` names each run's system in the plan and the results, on one
  // as on several: a parameter of that name would be read as one.
  const auto& parameter = planned.front().param_value_locations;
  const bool named = std::any_of(systems.begin(), systems.end(),
                                 [](const StudySystem& system) { return system.run.named; });
  if (named && parameter.count("system") && !parameter.at("system").empty()) {
    diagnostics.add(parameter.at("system").begin()->second, "system",
                    "a parameter named 'system' cannot be told from the study's systems; "
                    "rename it");
    return diagnostics.to_status();
  }
  Study study = join_systems(std::move(planned));
  for (const StudySystem& system : systems) {
    if (system.run.named) study.systems.push_back(system.run.label());
  }
  return study;
}

}  // namespace

Result<Study> load_study(const std::string& path, const StudySystemChoice& systems) {
  Result<Study> study = build_study(load_study_document_file(path), systems);
  if (study) {
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(path, error);
    study->source_path = error ? path : absolute.lexically_normal().string();
  }
  return study;
}

Result<Study> load_study_text(const std::string& yaml_text, const std::string& display_path,
                              const StudySystemChoice& systems) {
  return build_study(load_study_document(yaml_text, display_path), systems);
}

}  // namespace scalestudy
