// TokenCorpus: the token streams scalestudy-lm trains and validates on, and their windows.
//
// Byte-level text (vocabulary 256, every byte a token, no tokenizer to ship or train):
//   fortunes  Debian's `fortunes` package, /usr/share/games/fortunes unless --data-root:
//             every regular file there whose name has no '.' (the .dat indexes and .u8
//             links are not text), in name order; about 2.5 MB of English prose, verse,
//             quotations and jargon.
//   text      --data-root is a UTF-8/ASCII text file, or a folder of *.txt files (name
//             order): the user's own corpus.
// Each file's first 90% of bytes go to training and the rest to validation, so both
// splits see every file's register.
// Synthetic tokens (uniform over the vocabulary, from the seed) are for throughput alone.
//
// A split becomes windows of seq_len + 1 tokens at stride seq_len (each token is predicted
// once per epoch; input = window[:-1], target = window[1:]). Windows are handed to the
// harness's loaders as a one-row "image" (uint8 [N, planes, 1, seq_len + 1], labels 0), so
// sharding, shuffling, resume, prefetch and --data-on-device work unchanged: one plane of
// bytes for a vocabulary up to 256, two (high byte, low byte) up to 65,536. The loaders'
// float conversion with kTokenPlaneStats gives the byte values back exactly after rounding.
// Stateless functions; thread-safe.
#pragma once

#include <torch/torch.h>

#include <string>

#include "harness/core/status.hpp"
#include "harness/data/batch_assembly.hpp"
#include "harness/data/image_dataset.hpp"

namespace scalestudy::lm {

inline constexpr char kFortunesRoot[] = "/usr/share/games/fortunes";

struct TokenStreams {
  torch::Tensor train;       // int64 [n]
  torch::Tensor validation;  // int64 [m]
  int64_t files = 0;         // read from disk; 0 for synthetic tokens
};

// "fortunes" | "text". `root` empty: the fortunes package's folder (text needs one).
// Errors name the file or folder and, for fortunes, the package.
Result<TokenStreams> load_byte_corpus(const std::string& dataset, const std::string& root);

// `train_tokens` and `validation_tokens` uniform ids in [0, vocab), from `seed`.
TokenStreams synthetic_tokens(int64_t vocab, int64_t train_tokens, int64_t validation_tokens,
                              uint64_t seed);

// Windows of `tokens` (ids < vocab <= 65,536) as described above; at most `limit` (0: all);
// none when the stream is not longer than seq_len.
data::ImageSplit token_windows(const torch::Tensor& tokens, int64_t seq_len, int64_t vocab,
                               int64_t limit);

// Undoes token_windows after the loaders' conversion: a batch's images [B, planes, 1, T + 1]
// (float, any device) -> int64 [B, T + 1].
torch::Tensor window_tokens(const torch::Tensor& images);

// Mean 0 and standard deviation 1/255 per plane: the loaders' (x / 255 - mean) / std is x.
const data::ChannelStats& token_plane_stats(int64_t planes);

// Entropy in nats of the empirical distribution of `tokens` (int64 [n]): what a model that
// knows only token frequencies, no context, scores; a language model must go below it.
double unigram_entropy_nats(const torch::Tensor& tokens);

}  // namespace scalestudy::lm
