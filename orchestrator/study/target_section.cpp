#include "orchestrator/study/target_section.hpp"

#include <algorithm>

#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

const std::vector<std::string> kTargetKeys = {"val_accuracy", "val_loss"};

}  // namespace

void read_target_section(const ConfigNode& document, StudyTemplate& study,
                         Diagnostics& diagnostics) {
  const ConfigNode* target = document.find("target");
  if (!target || !expect_map(*target, "target", diagnostics)) return;
  check_keys(*target, "target.", kTargetKeys, diagnostics);
  if (target->entries.size() != 1) {
    diagnostics.add(target->location, "target",
                    "expected one figure: {val_accuracy: 0.88} or {val_loss: 0.4}");
    return;
  }
  const ConfigEntry& entry = target->entries.front();
  if (std::find(kTargetKeys.begin(), kTargetKeys.end(), entry.key) == kTargetKeys.end()) return;
  const std::string field = "target." + entry.key;
  auto value = read_non_negative_number(entry.value, field, diagnostics);
  if (!value) return;
  if (*value <= 0 || (entry.key == "val_accuracy" && *value > 1)) {
    diagnostics.add(entry.value.location, field,
                    entry.key == "val_accuracy"
                        ? "expected a fraction above 0 and at most 1 (0.88 for 88%)"
                        : "expected a loss above 0");
    return;
  }
  const std::string param = "target_" + entry.key;
  if (study.params.count(param)) {
    diagnostics.add(entry.key_location, field,
                    "the workload section sets " + param + " too; give the target once");
    return;
  }
  auto text = read_scalar(entry.value, field, diagnostics);
  if (text) study.params[param] = {*text, entry.value.location};
}

}  // namespace scalestudy
