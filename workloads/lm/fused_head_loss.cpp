#include "workloads/lm/fused_head_loss.hpp"

#include <algorithm>
#include <limits>

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
    // An index gather and scatter can read: ignored rows point at token 0, masked below.
    const torch::Tensor safe_targets = targets.masked_fill(valid.logical_not(), 0).unsqueeze(1);
    const auto float32 = torch::dtype(torch::kFloat).device(hidden.device());
    const torch::Tensor infinity = torch::full({}, std::numeric_limits<float>::infinity(), float32);
    torch::Tensor loss_sum = torch::zeros({}, float32);
    torch::Tensor grad_hidden, grad_weight;
    if (with_grads) {
      grad_hidden = torch::empty_like(hidden);
      grad_weight = torch::zeros(weight.sizes(), float32);
    }
    const int64_t rows = hidden.size(0);
    for (int64_t start = 0; start < rows; start += chunk_rows) {
      const int64_t length = std::min(chunk_rows, rows - start);
      const torch::Tensor h_chunk = h.narrow(0, start, length);
      const torch::Tensor target = safe_targets.narrow(0, start, length);
      const torch::Tensor counted = valid.narrow(0, start, length);
      torch::Tensor logits = torch::mm(h_chunk, w.t()).to(torch::kFloat);
      const torch::Tensor lse = logits.logsumexp(/*dim=*/1);
      const torch::Tensor target_logit = logits.gather(1, target).squeeze(1);
      loss_sum.add_(torch::where(counted, lse - target_logit, torch::zeros_like(lse)).sum());
      if (!with_grads) continue;
      // softmax in place; an ignored row's log-sum-exp of +inf makes it all zeros.
      logits.sub_(torch::where(counted, lse, infinity).unsqueeze(1)).exp_();
      logits.scatter_add_(1, target, counted.to(torch::kFloat).neg().unsqueeze(1));
      const torch::Tensor grad_logits = logits.to(compute);
      grad_hidden.narrow(0, start, length).copy_(torch::mm(grad_logits, w));
      grad_weight.add_(torch::mm(grad_logits.t(), h_chunk));
    }
    const torch::Tensor count = valid.sum().to(torch::kFloat);
    if (with_grads) {
      ctx->saved_data["grad_hidden"] = grad_hidden;
      ctx->saved_data["grad_weight"] = grad_weight;
      ctx->saved_data["count"] = count;
      ctx->saved_data["weight_dtype"] = weight.scalar_type();
    }
    return loss_sum / count;
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
