#include "workloads/lm/fused_head_loss.hpp"

#include <algorithm>

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::lm {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class FusedHeadCrossEntropy : public torch::autograd::Function<FusedHeadCrossEntropy> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& hidden,
                               const torch::Tensor& weight, const torch::Tensor& targets,
                               int64_t chunk_rows, at::ScalarType compute, bool with_grads) {
    const torch::Tensor h = hidden.to(compute), w = weight.to(compute);
    const torch::Tensor valid = targets.ne(kIgnoreIndex);
    // Ignored rows read token 0; their loss terms are dropped, their hidden states and
    // gradient rows zeroed ([rows, d] passes, not [rows, vocab] ones).
    const torch::Tensor safe_targets = targets.masked_fill(valid.logical_not(), 0).unsqueeze(1);
    const torch::Tensor keep = valid.unsqueeze(1).to(compute);
    const auto float32 = torch::dtype(torch::kFloat).device(hidden.device());
    const int64_t rows = hidden.size(0);
    torch::Tensor target_log_probs = torch::empty({rows}, float32);
    torch::Tensor grad_hidden, grad_weight;
    if (with_grads) {
      grad_hidden = torch::empty_like(hidden);
      grad_weight = torch::zeros(weight.sizes(), float32);
    }
    for (int64_t start = 0; start < rows; start += chunk_rows) {
      const int64_t length = std::min(chunk_rows, rows - start);
      const torch::Tensor h_chunk = h.narrow(0, start, length);
      const torch::Tensor target = safe_targets.narrow(0, start, length);
      // The plain path's call on the chunk's logits: float32 log-probabilities.
      torch::Tensor log_probs =
          torch::log_softmax(torch::mm(h_chunk, w.t()), /*dim=*/1, torch::kFloat);
      target_log_probs.narrow(0, start, length).copy_(log_probs.gather(1, target).squeeze(1));
      if (!with_grads) continue;
      // softmax − one-hot, in place of the log-probabilities.
      const torch::Tensor grad_logits =
          log_probs.exp_()
              .scatter_add_(1, target, torch::full_like(target, -1, float32))
              .to(compute);
      const torch::Tensor kept = keep.narrow(0, start, length);
      grad_hidden.narrow(0, start, length).copy_(torch::mm(grad_logits, w).mul_(kept));
      grad_weight.add_(torch::mm(grad_logits.t(), h_chunk * kept));
    }
    const torch::Tensor count = valid.sum().to(torch::kFloat);
    if (with_grads) {
      ctx->saved_data["grad_hidden"] = grad_hidden;
      ctx->saved_data["grad_weight"] = grad_weight;
      ctx->saved_data["count"] = count;
      ctx->saved_data["weight_dtype"] = weight.scalar_type();
    }
    return torch::where(valid, target_log_probs, torch::zeros_like(target_log_probs)).sum().neg() /
           count;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    TORCH_CHECK(ctx->saved_data.count("grad_hidden") > 0,
                "the fused head's forward ran without gradients");
    const torch::Tensor scale =
        grad_outputs[0].to(torch::kFloat) / ctx->saved_data["count"].toTensor();
    const torch::Tensor grad_hidden = ctx->saved_data["grad_hidden"].toTensor();
    const torch::Tensor grad_weight = ctx->saved_data["grad_weight"].toTensor();
    return {(grad_hidden.to(torch::kFloat) * scale).to(grad_hidden.scalar_type()),
            (grad_weight * scale).to(ctx->saved_data["weight_dtype"].toScalarType()),
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

torch::Tensor fused_head_cross_entropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                       const torch::Tensor& targets, int64_t chunk_rows,
                                       at::ScalarType compute_dtype) {
  TORCH_CHECK(hidden.dim() == 2 && weight.dim() == 2 && hidden.size(1) == weight.size(1),
              "fused head: hidden [N, d] and weight [vocab, d] expected");
  TORCH_CHECK(targets.dim() == 1 && targets.size(0) == hidden.size(0),
              "fused head: one target per row expected");
  TORCH_CHECK(chunk_rows >= 1, "fused head: chunk_rows must be >= 1");
  const bool with_grads =
      torch::GradMode::is_enabled() && (hidden.requires_grad() || weight.requires_grad());
  return FusedHeadCrossEntropy::apply(hidden, weight, targets, chunk_rows, compute_dtype,
                                      with_grads);
}

at::ScalarType head_compute_dtype(const torch::Tensor& hidden) {
  const c10::DeviceType device = hidden.device().type();
  return compat::autocast_enabled(device) ? compat::autocast_dtype(device) : hidden.scalar_type();
}

}  // namespace scalestudy::lm
