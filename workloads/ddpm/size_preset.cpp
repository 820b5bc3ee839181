#include "workloads/ddpm/size_preset.hpp"

namespace scalestudy::ddpm {
namespace {

const std::vector<SizePreset>& presets() {
  static const std::vector<SizePreset> table = {
      {"small", 28, 2048, {1, 2, 2}},
      {"medium", 64, 384, {1, 2, 2, 4}},
      {"large", 96, 96, {1, 1, 2, 2, 4}},
      {"xl", 128, 32, {1, 1, 2, 2, 4}},
  };
  return table;
}

}  // namespace

std::vector<std::string> size_preset_names() {
  std::vector<std::string> names;
  for (const SizePreset& preset : presets()) names.push_back(preset.name);
  return names;
}

Result<SizePreset> find_size_preset(const std::string& name) {
  std::string known;
  for (const SizePreset& preset : presets()) {
    if (preset.name == name) return preset;
    known += (known.empty() ? "" : ", ") + preset.name;
  }
  return Status::error("--preset '" + name + "' is not one of " + known);
}

}  // namespace scalestudy::ddpm
