#include "workloads/lm/gpt.hpp"

#include <cmath>
#include <limits>
#include <string_view>

#include "harness/compat/torch_compat.hpp"
#include "workloads/lm/linear_gelu.hpp"

namespace scalestudy::lm {
namespace {

constexpr double kInitStd = 0.02;

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

torch::nn::LayerNorm layer_norm(int64_t width) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(1e-5));
}

// The Linear module's forward (F::linear) runs a 3-D input as matmul, then `output += bias`,
// a second pass that cost GPT-2 small 5.6 ms a bf16 forward on an H200 (docs/lm.md).
// torch::linear is PyTorch-Python's path: the bias fused into the product (addmm).
torch::Tensor project(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return torch::linear(x, layer->weight, layer->bias);
}

}  // namespace

CausalSelfAttentionImpl::CausalSelfAttentionImpl(const GptConfig& config) : n_head_(config.n_head) {
  c_attn = register_module("c_attn", torch::nn::Linear(config.d_model, 3 * config.d_model));
  c_proj = register_module("c_proj", torch::nn::Linear(config.d_model, config.d_model));
}

torch::Tensor CausalSelfAttentionImpl::causal_mask(int64_t length, const torch::Device& device) {
  if (!mask_.defined() || mask_.size(0) != length || mask_.device() != device) {
    mask_ = torch::ones({length, length}, torch::dtype(torch::kBool).device(device)).tril();
  }
  return mask_;
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t batch = x.size(0), length = x.size(1), width = x.size(2);
  const int64_t head_width = width / n_head_;
  std::vector<torch::Tensor> qkv = project(c_attn, x).split(width, /*dim=*/2);
  auto heads = [&](const torch::Tensor& t) {
    return t.view({batch, length, n_head_, head_width}).transpose(1, 2);
  };
  torch::Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
  torch::Tensor y;
  if constexpr (compat::kHasFusedAttention) {
    y = compat::causal_attention(q, k, v);
  } else {
    torch::Tensor scores =
        torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(head_width)));
    scores = scores.masked_fill(causal_mask(length, x.device()).logical_not(),
                                -std::numeric_limits<float>::infinity());
    y = torch::matmul(torch::softmax(scores, -1), v);
  }
  return project(c_proj, y.transpose(1, 2).contiguous().view({batch, length, width}));
}

MlpImpl::MlpImpl(int64_t d_model, bool gelu_epilogue) : gelu_epilogue_(gelu_epilogue) {
  c_fc = register_module("c_fc", torch::nn::Linear(d_model, 4 * d_model));
  c_proj = register_module("c_proj", torch::nn::Linear(4 * d_model, d_model));
}

torch::Tensor MlpImpl::forward(const torch::Tensor& x) {
  torch::Tensor activated = gelu_epilogue_ ? linear_gelu(x, c_fc->weight, c_fc->bias)
                                           : torch::gelu(project(c_fc, x), "tanh");
  return project(c_proj, activated);
}

BlockImpl::BlockImpl(const GptConfig& config) {
  ln_1 = register_module("ln_1", layer_norm(config.d_model));
  attn = register_module("attn", CausalSelfAttention(config));
  ln_2 = register_module("ln_2", layer_norm(config.d_model));
  mlp = register_module("mlp", Mlp(config.d_model, config.gelu_epilogue));
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor attended = x + attn(ln_1(x));
  return attended + mlp(ln_2(attended));
}

GptImpl::GptImpl(const GptConfig& config) : config_(config) {
  wte = register_module("wte", torch::nn::Embedding(config.vocab, config.d_model));
  wpe = register_module("wpe", torch::nn::Embedding(config.seq_len, config.d_model));
  h = register_module("h", torch::nn::ModuleList());
  for (int64_t layer = 0; layer < config.n_layer; ++layer) h->push_back(Block(config));
  ln_f = register_module("ln_f", layer_norm(config.d_model));
  initialise();
}

void GptImpl::initialise() {
  torch::NoGradGuard no_grad;
  const double residual_std = kInitStd / std::sqrt(2.0 * static_cast<double>(config_.n_layer));
  for (const auto& item : named_parameters()) {
    const std::string& name = item.key();
    torch::Tensor parameter = item.value();
    if (name.find("ln_") != std::string::npos) {
      parameter.fill_(ends_with(name, ".weight") ? 1 : 0);
    } else if (parameter.dim() == 1) {
      parameter.zero_();  // a bias
    } else {
      parameter.normal_(0, ends_with(name, "c_proj.weight") ? residual_std : kInitStd);
    }
  }
}

torch::Tensor GptImpl::forward(const torch::Tensor& tokens) {
  return torch::linear(hidden(tokens), wte->weight);
}

torch::Tensor GptImpl::hidden(const torch::Tensor& tokens) {
  const int64_t length = tokens.size(1);
  torch::Tensor positions =
      torch::arange(length, torch::dtype(torch::kLong).device(tokens.device()));
  torch::Tensor x = wte(tokens) + wpe(positions);
  for (const auto& block : *h) x = block->as<Block>()->forward(x);
  return ln_f(x);
}

}  // namespace scalestudy::lm
