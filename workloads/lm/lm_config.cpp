#include "workloads/lm/lm_config.hpp"

namespace scalestudy::lm {
namespace {

constexpr int64_t kByteVocab = 256;
constexpr int64_t kMaxVocab = 65536;  // two byte planes per token (token_corpus.hpp)

}  // namespace

void declare_lm_flags(train::Flags& flags) {
  flags
      .declare("preset", "tiny",
               "model shape and per-GPU batch: tiny 4x128 ctx 128 | small 12x768 ctx 1024 "
               "(GPT-2 small) | medium 24x1024 ctx 1024 (GPT-2 medium)")
      .one_of(gpt_preset_names());
  flags.declare("n-layer", "4", "transformer blocks; default the preset's").integer(1);
  flags.declare("n-head", "4", "attention heads; default the preset's").integer(1);
  flags.declare("d-model", "128", "model width; default the preset's").integer(1);
  flags.declare("seq-len", "128", "context: tokens per sample; default the preset's").integer(1);
  flags
      .declare("vocab", "256",
               "vocabulary; 256 (bytes) for text, default the preset's for synthetic")
      .integer(1);
  flags.declare("dataset", "fortunes", "fortunes | text | synthetic")
      .one_of({"fortunes", "text", "synthetic"});
  flags
      .declare("fused-head", "false",
               "the output head and cross-entropy fused, chunk by chunk over the tokens: the "
               "[tokens, vocab] logits and their gradient never exist whole (docs/lm.md)")
      .boolean();
  flags
      .declare("gelu-epilogue", "false",
               "the MLP's GELU in its first GEMM's epilogue (_addmm_activation; on the CPU the "
               "exact GELU, not GPT-2's tanh one: docs/lm.md)")
      .boolean();
  flags
      .declare("head-chunk-rows", std::to_string(kDefaultHeadChunkRows),
               "tokens per chunk of --fused-head")
      .integer(1);
  train::declare_data_source_flags(flags);
}

void derive_lm_defaults(train::Flags& flags) {
  auto preset = find_gpt_preset(flags.get("preset"));
  if (!preset) return;  // validate() reports it
  const GptConfig& shape = preset->shape;
  flags.set_default("n-layer", std::to_string(shape.n_layer));
  flags.set_default("n-head", std::to_string(shape.n_head));
  flags.set_default("d-model", std::to_string(shape.d_model));
  flags.set_default("seq-len", std::to_string(shape.seq_len));
  const bool bytes = flags.get("dataset") != "synthetic";
  flags.set_default("vocab", std::to_string(bytes ? kByteVocab : shape.vocab));
  flags.set_default("batch-size", std::to_string(preset->per_gpu_batch));
}

Result<LmConfig> resolve_lm_config(const train::Flags& flags) {
  LmConfig config;
  config.dataset = flags.get("dataset");
  config.data_root = flags.get("data-root");
  struct IntFlag {
    const char* name;
    int64_t* target;
  };
  const IntFlag ints[] = {
      {"n-layer", &config.model.n_layer},   {"n-head", &config.model.n_head},
      {"d-model", &config.model.d_model},   {"seq-len", &config.model.seq_len},
      {"vocab", &config.model.vocab},       {"train-samples", &config.train_samples},
      {"val-samples", &config.val_samples}, {"head-chunk-rows", &config.head_chunk_rows}};
  for (const IntFlag& flag : ints) {
    auto value = flags.get_int(flag.name);
    if (!value) return value.status();
    *flag.target = *value;
  }
  auto fused_head = flags.get_bool("fused-head");
  if (!fused_head) return fused_head.status();
  config.fused_head = *fused_head;
  auto gelu_epilogue = flags.get_bool("gelu-epilogue");
  if (!gelu_epilogue) return gelu_epilogue.status();
  config.model.gelu_epilogue = *gelu_epilogue;
  if (Status valid = validate_gpt_config(config.model); !valid) return valid;
  if (config.byte_tokens() && config.model.vocab < kByteVocab) {
    return Status::error("--vocab " + std::to_string(config.model.vocab) + " is below the 256 " +
                         "byte tokens of --dataset " + config.dataset);
  }
  if (config.model.vocab > kMaxVocab) {
    return Status::error("--vocab " + std::to_string(config.model.vocab) + " is above " +
                         std::to_string(kMaxVocab) + ", the most two byte planes hold");
  }
  return config;
}

}  // namespace scalestudy::lm
