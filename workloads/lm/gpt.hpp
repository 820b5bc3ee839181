// Gpt: a decoder-only transformer language model (GPT-2's architecture, nanoGPT's names):
// token and position embeddings, n_layer pre-norm blocks — x + attn(ln_1(x)), then
// x + mlp(ln_2(x)) — of causal multi-head self-attention and a 4x GELU (tanh) MLP, a final
// layer norm and an output head tied to the token embedding. Parameter names match
// nanoGPT's without its `transformer.` prefix (wte, wpe, h.<i>.attn.c_attn, ..., ln_f), so
// a state dict moves between this model and a PyTorch-Python twin by name.
// Initialisation as GPT-2: weights N(0, 0.02), the two residual projections (c_proj)
// N(0, 0.02/sqrt(2·n_layer)), biases 0, norms 1.
// Attention is one fused kernel (scaled_dot_product_attention, flash attention on CUDA)
// where LibTorch has it (compat::kHasFusedAttention), else softmax(QK^T/sqrt(d_head))V with
// a causal mask. With config.gelu_epilogue the MLP's GELU runs in its first GEMM's epilogue
// (linear_gelu.hpp). Modules are used by one thread at a time.
#pragma once

#include <torch/torch.h>

#include "workloads/lm/gpt_config.hpp"

namespace scalestudy::lm {

class CausalSelfAttentionImpl : public torch::nn::Module {
 public:
  CausalSelfAttentionImpl(const GptConfig& config);
  torch::Tensor forward(const torch::Tensor& x);  // [B, T, d] -> [B, T, d]

  torch::nn::Linear c_attn{nullptr}, c_proj{nullptr};

 private:
  torch::Tensor causal_mask(int64_t length, const torch::Device& device);

  int64_t n_head_;
  torch::Tensor mask_;  // the lower triangle, cached; not a buffer (not in the state dict)
};
TORCH_MODULE(CausalSelfAttention);

class MlpImpl : public torch::nn::Module {
 public:
  MlpImpl(int64_t d_model, bool gelu_epilogue);
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Linear c_fc{nullptr}, c_proj{nullptr};

 private:
  bool gelu_epilogue_;
};
TORCH_MODULE(Mlp);

class BlockImpl : public torch::nn::Module {
 public:
  explicit BlockImpl(const GptConfig& config);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  CausalSelfAttention attn{nullptr};
  Mlp mlp{nullptr};
};
TORCH_MODULE(Block);

class GptImpl : public torch::nn::Module {
 public:
  explicit GptImpl(const GptConfig& config);
  // Token ids int64 [B, T] (T <= seq_len) -> logits [B, T, vocab]: the head applied to
  // hidden(tokens).
  torch::Tensor forward(const torch::Tensor& tokens);
  // The final layer norm's output [B, T, d], before the head (fused_head_loss.hpp's input).
  torch::Tensor hidden(const torch::Tensor& tokens);
  // The output head's weight [vocab, d]: the token embedding's, tied.
  const torch::Tensor& head_weight() const { return wte->weight; }
  const GptConfig& config() const { return config_; }

 private:
  void initialise();

  GptConfig config_;
  torch::nn::Embedding wte{nullptr}, wpe{nullptr};
  torch::nn::ModuleList h{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};
};
TORCH_MODULE(Gpt);

}  // namespace scalestudy::lm
