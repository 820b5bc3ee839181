// GptConfig: the shape of scalestudy-lm's decoder-only transformer (layers, heads, width,
// context, vocabulary), its size presets, and the FLOPs one training token costs.
//
// Presets (GPT-2's shapes; nanoGPT's vocabulary of 50,304 = 50,257 padded to a multiple of
// 64 where the data has no vocabulary of its own, 256 byte tokens where it has):
//   tiny   4 layers,  4 heads,  128 wide, 128 context   (0.85M parameters at 256 tokens)
//   small  12 layers, 12 heads, 768 wide, 1024 context  (GPT-2 small: 124M at 50,304 tokens)
//   medium 24 layers, 16 heads, 1024 wide, 1024 context (GPT-2 medium: 350M at 50,304 tokens)
//
// FLOPs per trained token (PaLM, Chowdhery et al. 2022, appendix B; Kaplan et al. 2020,
// table 1): 6·N for the matrix products against the N parameters (2 forward, 4 backward),
// plus 12·n_layer·d_model·seq_len for attention's QK^T and weighted sum of V, which no
// parameter carries (4·L·d·T forward, twice that backward; the causal mask's skipped half
// counted, as PaLM does). N counts every parameter: the tied output head multiplies by the
// token embedding, so it is in N once, as it is in the products. Plain values; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::lm {

struct GptConfig {
  int64_t n_layer = 4;
  int64_t n_head = 4;
  int64_t d_model = 128;
  int64_t seq_len = 128;  // context: tokens a sample predicts
  int64_t vocab = 256;
  // Not the shape: how the MLP computes (linear_gelu.hpp, --gelu-epilogue).
  bool gelu_epilogue = false;
};

struct GptPreset {
  std::string name;
  GptConfig shape;            // vocab: the preset's when the data has none of its own
  int64_t per_gpu_batch = 0;  // sequences
};

std::vector<std::string> gpt_preset_names();
// An unknown name is an error listing the presets.
Result<GptPreset> find_gpt_preset(const std::string& name);

// Ranges and divisibility (d_model by n_head), naming the flag.
Status validate_gpt_config(const GptConfig& config);

// Parameters of the model with tied embeddings: embeddings, per block two layer norms,
// the attention's QKV and output projections and the MLP (4x), all with biases, and the
// final norm.
int64_t gpt_parameter_count(const GptConfig& config);

// 6·N + 12·n_layer·d_model·seq_len (see above).
double training_flops_per_token(const GptConfig& config, int64_t parameters);

}  // namespace scalestudy::lm
