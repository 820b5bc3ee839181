// The LM's output head and its cross-entropy fused and chunked (`--fused-head`, docs/lm.md):
// the mean over rows of -log softmax(hidden · weightᵀ)[target], computed over chunks of rows
// so that only one chunk's logits [chunk_rows, vocab] exist at a time, never the whole
// [N, vocab] (3.3 GB in float32 for GPT-2 small at batch 16 × 1024).
//
// Per chunk: the logits in the compute dtype (the product the plain path's linear makes,
// autocast's dtype where it is on), then — the plain path's call on them — their float32
// log-softmax, the target's entry kept; and, in the same pass, the chunk's logit gradient
// softmax − one-hot (the log-probabilities exponentiated in place), cast to the compute
// dtype and turned at once into the hidden-state gradient rows (· weight) and a term of the
// weight gradient (ᵀ · hidden), accumulated in float32. The gradients are computed in the
// forward pass (as Liger's and llm.c's fused heads do): that saves recomputing the head's
// product in backward — one of its three GEMMs — and keeps only [N, d] and [vocab, d]
// between forward and backward. They are those of the summed loss, kept in the hidden
// states' and weight's own dtypes; backward scales them by grad_output / (rows counted) in
// float32, so an fp16 loss scale enters after the compute-dtype products, which see
// softmax − one-hot in [−1, 1] where the plain path's see (scale / N) times it. Without a
// gradient to compute (evaluation, no grad mode) the forward pass computes the loss alone.
//
// Targets equal to kIgnoreIndex (the plain path's nll_loss default) count in neither the
// loss nor its mean's denominator. Stateless; thread-safe.
#pragma once

#include <torch/torch.h>

namespace scalestudy::lm {

inline constexpr int64_t kIgnoreIndex = -100;
// GPT-2 small's head at 2,048 rows: three GEMMs of 2,048 × 768 × 50,304 (0.16 TFLOP each,
// enough to fill an H100), and float32 logits of 0.4 GB instead of 3.3.
inline constexpr int64_t kDefaultHeadChunkRows = 2048;

// hidden [N, d] (any float dtype), weight [vocab, d], targets int64 [N] -> the mean loss,
// a float32 scalar, differentiable in hidden and weight. compute_dtype: the dtype of the
// head's products (head_compute_dtype below gives the plain path's).
torch::Tensor fused_head_cross_entropy(const torch::Tensor& hidden, const torch::Tensor& weight,
                                       const torch::Tensor& targets, int64_t chunk_rows,
                                       at::ScalarType compute_dtype);

// The dtype the plain path's head (torch::linear) computes in: autocast's where it is on
// for the hidden states' device, else the hidden states' own.
at::ScalarType head_compute_dtype(const torch::Tensor& hidden);

}  // namespace scalestudy::lm
