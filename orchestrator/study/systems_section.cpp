#include "orchestrator/study/systems_section.hpp"

#include <set>

#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

struct Label {
  std::string text;
  std::string field;
  SourceLocation location;
};

std::vector<Label> study_labels(const ConfigNode& systems, Diagnostics& diagnostics) {
  std::vector<Label> labels;
  size_t index = 0;
  for (const ConfigNode* item : read_list(systems, "systems", diagnostics)) {
    const std::string field = indexed_field("systems", index++);
    if (auto text = read_line_scalar(*item, field, diagnostics)) {
      labels.push_back({*text, field, item->location});
    }
  }
  return labels;
}

std::vector<Label> command_line_labels(const std::vector<std::string>& given) {
  static const auto kCommandLine = std::make_shared<const std::string>("command line");
  std::vector<Label> labels;
  for (const std::string& text : given) labels.push_back({text, "--system", {kCommandLine}});
  return labels;
}

}  // namespace

std::vector<StudySystem> take_study_systems(ConfigNode& document, const StudySystemChoice& choice,
                                            Diagnostics& diagnostics) {
  std::vector<Label> labels;
  if (const ConfigNode* systems = document.find("systems")) {
    labels = study_labels(*systems, diagnostics);
    document.erase("systems");
  }
  if (!choice.labels.empty()) labels = command_line_labels(choice.labels);
  std::vector<StudySystem> chosen;
  if (labels.empty()) {
    // The implicit system is only recorded: one that cannot be read is left out, and a
    // study that names no system plans as it always did.
    if (!choice.implicit) return chosen;
    auto implicit = choice.implicit();
    if (implicit && *implicit) chosen.push_back(std::move(**implicit));
    return chosen;
  }
  std::set<std::string> seen;
  for (const Label& label : labels) {
    if (!seen.insert(label.text).second) {
      diagnostics.add(label.location, label.field,
                      "'" + label.text + "' is named twice; each run belongs to one system");
      continue;
    }
    if (!choice.resolve) {
      diagnostics.add(label.location, label.field, "no system files are known here");
      continue;
    }
    auto system = choice.resolve(label.text);
    if (!system) {
      diagnostics.add(label.location, label.field, system.status().message());
      continue;
    }
    system->run.named = true;
    chosen.push_back(std::move(*system));
  }
  return chosen;
}

}  // namespace scalestudy
