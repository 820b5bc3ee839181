#include "orchestrator/study/axes_section.hpp"

#include <set>

#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/schema_values.hpp"
#include "orchestrator/study/study_variables.hpp"

namespace scalestudy {
namespace {

// Whether `entry` may name an axis; reports why not.
bool check_axis_name(const ConfigEntry& entry, const std::string& field, bool batch_key,
                     std::set<std::string>& seen, Diagnostics& diagnostics) {
  const std::string& key = entry.key;
  if (!batch_key && !is_identifier(key)) {
    diagnostics.add(entry.key_location, field, "axis names are parameter names (identifiers)");
    return false;
  }
  if (!batch_key && (is_reserved_param(key) || is_builtin_slot_name(key))) {
    diagnostics.add(entry.key_location, field,
                    key == "batch_size" ? "vary global_batch or per_gpu_batch instead"
                                        : "cannot be varied here (the scale comes from `scale`)");
    return false;
  }
  if (!seen.insert(key).second) {
    diagnostics.add(entry.key_location, field, "is varied twice (in matrix and zip, or twice)");
    return false;
  }
  return true;
}

Axis read_axis(const ConfigEntry& entry, const std::string& field, bool batch_key,
               Diagnostics& diagnostics) {
  Axis axis{entry.key, field, entry.key_location, {}};
  size_t index = 0;
  for (const ConfigNode* item : read_list(entry.value, field, diagnostics)) {
    std::string item_field = indexed_field(field, index++);
    auto text = read_scalar(*item, item_field, diagnostics);
    if (!text) continue;
    if (batch_key) {
      if (!read_integer(*item, item_field, 1, diagnostics)) continue;
    } else {
      check_reference_syntax(*item, item_field, *text, diagnostics);
    }
    axis.values.push_back({*text, item->location});
  }
  return axis;
}

// One matrix or zip group; `seen` holds the names varied so far.
std::vector<Axis> read_axis_group(const ConfigNode& group, const std::string& prefix,
                                  std::set<std::string>& seen, Diagnostics& diagnostics) {
  std::vector<Axis> axes;
  if (!expect_map(group, prefix, diagnostics)) return axes;
  if (group.entries.empty()) diagnostics.add(group.location, prefix, "may not be empty");
  for (const auto& entry : group.entries) {
    std::string field = prefix + "." + entry.key;
    bool batch_key = entry.key == "global_batch" || entry.key == "per_gpu_batch";
    if (!check_axis_name(entry, field, batch_key, seen, diagnostics)) continue;
    axes.push_back(read_axis(entry, field, batch_key, diagnostics));
  }
  return axes;
}

void check_zip_lengths(const std::vector<Axis>& columns, const std::string& prefix,
                       Diagnostics& diagnostics) {
  for (const auto& column : columns) {
    if (column.values.size() != columns[0].values.size()) {
      diagnostics.add(column.location, prefix + "." + column.name,
                      "has " + std::to_string(column.values.size()) + " values but " +
                          columns[0].name + " has " + std::to_string(columns[0].values.size()) +
                          " (zip lists advance together and must be equally long)");
    }
  }
}

}  // namespace

void read_axes_section(const ConfigNode& document, StudyTemplate& study, Diagnostics& diagnostics) {
  std::set<std::string> seen;
  if (const ConfigNode* matrix = document.find("matrix")) {
    study.matrix = read_axis_group(*matrix, "matrix", seen, diagnostics);
  }
  const ConfigNode* zip = document.find("zip");
  if (!zip) return;
  std::vector<const ConfigNode*> groups;
  if (zip->is_map()) {
    groups.push_back(zip);
  } else {
    groups = read_list(*zip, "zip", diagnostics);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    std::string prefix = zip->is_map() ? "zip" : indexed_field("zip", g);
    std::vector<Axis> columns = read_axis_group(*groups[g], prefix, seen, diagnostics);
    check_zip_lengths(columns, prefix, diagnostics);
    if (!columns.empty()) study.zips.push_back(std::move(columns));
  }
}

}  // namespace scalestudy
