#include "orchestrator/study/filters_section.hpp"

#include <algorithm>

#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

// A map of variable: value; "workload.lr" names the parameter lr.
std::optional<Selector> read_selector(const ConfigNode& node, const std::string& field,
                                      const std::vector<std::string>& slot_names,
                                      Diagnostics& diagnostics) {
  if (!expect_map(node, field, diagnostics)) return std::nullopt;
  if (node.entries.empty()) {
    diagnostics.add(node.location, field, "may not be empty");
    return std::nullopt;
  }
  Selector selector{node.location, {}};
  for (const auto& entry : node.entries) {
    std::string name = entry.key.rfind("workload.", 0) == 0 ? entry.key.substr(9) : entry.key;
    auto slot = std::find(slot_names.begin(), slot_names.end(), name);
    if (slot == slot_names.end()) {
      diagnostics.add_unknown(entry.key_location, field + "." + entry.key, "name", entry.key,
                              slot_names);
      continue;
    }
    auto text = read_scalar(entry.value, field + "." + entry.key, diagnostics);
    if (!text) continue;
    selector.slot_values.push_back(
        {static_cast<int>(slot - slot_names.begin()), {*text, entry.value.location}});
  }
  return selector;
}

void read_wheres(const ConfigNode& where, StudyTemplate& study, Diagnostics& diagnostics) {
  size_t index = 0;
  for (const ConfigNode* item : read_list(where, "where", diagnostics, SingleValue::kListOfOne)) {
    std::string field = where.is_sequence() ? indexed_field("where", index) : "where";
    ++index;
    auto text = read_scalar(*item, field, diagnostics);
    if (!text) continue;
    auto expression = WhereExpression::parse(*text, study.slot_names);
    if (!expression) {
      diagnostics.add(item->location, field, expression.status().message());
      continue;
    }
    study.wheres.push_back({std::move(expression).value(), {*text, item->location}});
  }
}

}  // namespace

void read_filters_section(const ConfigNode& document, StudyTemplate& study,
                          Diagnostics& diagnostics) {
  if (const ConfigNode* exclude = document.find("exclude")) {
    size_t index = 0;
    for (const ConfigNode* item : read_list(*exclude, "exclude", diagnostics)) {
      if (auto selector = read_selector(*item, indexed_field("exclude", index), study.slot_names,
                                        diagnostics)) {
        study.excludes.push_back(std::move(*selector));
      }
      ++index;
    }
  }
  if (const ConfigNode* where = document.find("where")) read_wheres(*where, study, diagnostics);
  if (const ConfigNode* baseline = document.find("baseline")) {
    study.baseline = read_selector(*baseline, "baseline", study.slot_names, diagnostics);
    if (study.baseline) {
      for (const auto& [slot, value] : study.baseline->slot_values) {
        study.info.baseline[study.slot_names[slot]] = value.text;
      }
    }
  }
}

}  // namespace scalestudy
