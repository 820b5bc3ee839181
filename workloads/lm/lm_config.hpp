// LmConfig: scalestudy-lm's own flags (size preset and shape, data, loss path), declared once and
// resolved into typed values; the training loop's flags are TrainingConfig's. A preset
// fills every shape flag the command line left unset (derive_lm_defaults), so config_json
// records the shape a run trained. Plain value type.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "harness/train/flags.hpp"
#include "workloads/lm/fused_head_loss.hpp"
#include "workloads/lm/gpt_config.hpp"

namespace scalestudy::lm {

struct LmConfig {
  GptConfig model;
  std::string dataset;  // fortunes | text | synthetic
  std::string data_root;
  int64_t train_samples = 0;    // windows; 0: the whole split (synthetic: kSyntheticTrainWindows)
  int64_t val_samples = 0;      // windows; 0: the whole split (synthetic: kSyntheticValWindows)
  bool fused_head = false;      // the loss through fused_head_loss.hpp instead of full logits
  int64_t head_chunk_rows = 0;  // the fused head's rows per chunk
  bool byte_tokens() const { return dataset != "synthetic"; }
};

inline constexpr int64_t kSyntheticTrainWindows = 4096;
inline constexpr int64_t kSyntheticValWindows = 256;

void declare_lm_flags(train::Flags& flags);
// The preset's shape and per-GPU batch, and vocab 256 for byte corpora, where unset.
void derive_lm_defaults(train::Flags& flags);
Result<LmConfig> resolve_lm_config(const train::Flags& flags);

}  // namespace scalestudy::lm
