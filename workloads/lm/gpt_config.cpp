#include "workloads/lm/gpt_config.hpp"

namespace scalestudy::lm {
namespace {

constexpr int64_t kPaddedGpt2Vocab = 50304;

const std::vector<GptPreset>& presets() {
  static const std::vector<GptPreset> table = {
      {"tiny", {4, 4, 128, 128, 256}, 32},
      {"small", {12, 12, 768, 1024, kPaddedGpt2Vocab}, 8},
      {"medium", {24, 16, 1024, 1024, kPaddedGpt2Vocab}, 4},
  };
  return table;
}

}  // namespace

std::vector<std::string> gpt_preset_names() {
  std::vector<std::string> names;
  for (const GptPreset& preset : presets()) names.push_back(preset.name);
  return names;
}

Result<GptPreset> find_gpt_preset(const std::string& name) {
  std::string known;
  for (const GptPreset& preset : presets()) {
    if (preset.name == name) return preset;
    known += (known.empty() ? "" : ", ") + preset.name;
  }
  return Status::error("--preset '" + name + "' is not one of " + known);
}

Status validate_gpt_config(const GptConfig& config) {
  const std::pair<const char*, int64_t> positive[] = {{"n-layer", config.n_layer},
                                                      {"n-head", config.n_head},
                                                      {"d-model", config.d_model},
                                                      {"seq-len", config.seq_len},
                                                      {"vocab", config.vocab}};
  for (const auto& [flag, value] : positive) {
    if (value < 1) return Status::error(std::string("--") + flag + " must be >= 1");
  }
  if (config.d_model % config.n_head != 0) {
    return Status::error("--d-model " + std::to_string(config.d_model) +
                         " is not a multiple of --n-head " + std::to_string(config.n_head));
  }
  return Status::ok();
}

int64_t gpt_parameter_count(const GptConfig& config) {
  const int64_t d = config.d_model;
  const int64_t norm = 2 * d;
  const int64_t block =
      2 * norm + (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d);
  return config.vocab * d + config.seq_len * d + config.n_layer * block + norm;
}

double training_flops_per_token(const GptConfig& config, int64_t parameters) {
  return 6.0 * static_cast<double>(parameters) +
         12.0 * static_cast<double>(config.n_layer * config.d_model * config.seq_len);
}

}  // namespace scalestudy::lm
