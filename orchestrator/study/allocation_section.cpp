#include "orchestrator/study/allocation_section.hpp"

#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {
namespace {

// `node` as one of two words: true for `yes_word`, false for `no_word`; nothing (and an
// error naming both) for anything else.
std::optional<bool> read_either(const ConfigNode& node, const std::string& field,
                                const std::string& no_word, const std::string& yes_word,
                                Diagnostics& diagnostics) {
  auto text = read_scalar(node, field, diagnostics);
  if (!text) return std::nullopt;
  if (*text == yes_word || *text == no_word) return *text == yes_word;
  diagnostics.add_unknown(node.location, field, field.substr(field.rfind('.') + 1), *text,
                          {no_word, yes_word});
  return std::nullopt;
}

void read_pack_policy(const ConfigNode& document, StudyTemplate& study, Diagnostics& diagnostics) {
  study.info.pack_concurrent = study.info.kind != StudyKind::kStrong;
  const ConfigNode* pack = document.find("pack");
  if (!pack || !expect_map(*pack, "pack", diagnostics)) return;
  check_keys(*pack, "pack.", {"policy"}, diagnostics);
  if (const ConfigNode* policy = pack->find("policy")) {
    auto concurrent = read_either(*policy, "pack.policy", "serial", "concurrent", diagnostics);
    if (concurrent) study.info.pack_concurrent = *concurrent;
  }
}

}  // namespace

void read_allocation_section(const ConfigNode& document, StudyTemplate& study,
                             Diagnostics& diagnostics) {
  read_pack_policy(document, study, diagnostics);
  if (const ConfigNode* allocation = document.find("allocation")) {
    auto packed = read_either(*allocation, "allocation", "per_run", "packed", diagnostics);
    if (packed) study.info.packed_allocation = *packed;
  }
}

}  // namespace scalestudy
