#include "workloads/lm/token_corpus.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "harness/data/file_bytes.hpp"
#include "harness/data/seed_mixing.hpp"

namespace scalestudy::lm {
namespace {

namespace fs = std::filesystem;

constexpr double kTrainFraction = 0.9;
constexpr int64_t kByteValues = 256;

// The files a corpus folder holds, in name order.
Result<std::vector<fs::path>> corpus_files(const std::string& dataset, const fs::path& root) {
  std::error_code error;
  if (dataset == "text" && fs::is_regular_file(root, error)) return std::vector<fs::path>{root};
  if (!fs::is_directory(root, error)) {
    std::string hint = dataset == "fortunes" ? " (install Debian's fortunes package)" : "";
    return Status::error(dataset + " corpus: " + root.string() + " is not a folder" + hint);
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(root, error)) {
    std::error_code kind;
    if (entry.is_symlink(kind) || !entry.is_regular_file(kind)) continue;
    const std::string name = entry.path().filename().string();
    const bool text = dataset == "fortunes" ? name.find('.') == std::string::npos
                                            : entry.path().extension() == ".txt";
    if (text) files.push_back(entry.path());
  }
  if (error)
    return Status::error(dataset + " corpus: cannot list " + root.string() + ": " +
                         error.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return Status::error(
        dataset + " corpus: no " +
        (dataset == "fortunes" ? "fortune file (a name without '.')" : "*.txt file") + " in " +
        root.string());
  }
  return files;
}

torch::Tensor as_tokens(const std::vector<uint8_t>& bytes, size_t from, size_t to) {
  return torch::from_blob(const_cast<uint8_t*>(bytes.data()) + from,
                          {static_cast<int64_t>(to - from)}, torch::kUInt8)
      .to(torch::kLong);
}

}  // namespace

Result<TokenStreams> load_byte_corpus(const std::string& dataset, const std::string& root) {
  if (dataset != "fortunes" && dataset != "text") {
    return Status::error("--dataset '" + dataset + "' is not a byte corpus: fortunes, text");
  }
  if (dataset == "text" && root.empty()) {
    return Status::error("--dataset text needs --data-root: a text file or a folder of *.txt");
  }
  auto files = corpus_files(dataset, root.empty() ? fs::path(kFortunesRoot) : fs::path(root));
  if (!files) return files.status();
  std::vector<torch::Tensor> train, validation;
  for (const fs::path& file : *files) {
    auto bytes = data::read_file_bytes(file.string());
    if (!bytes) return bytes.status();
    const size_t cut = static_cast<size_t>(kTrainFraction * static_cast<double>(bytes->size()));
    train.push_back(as_tokens(*bytes, 0, cut));
    validation.push_back(as_tokens(*bytes, cut, bytes->size()));
  }
  TokenStreams streams{torch::cat(train), torch::cat(validation),
                       static_cast<int64_t>(files->size())};
  if (streams.validation.numel() < 2 || streams.train.numel() < 2) {
    return Status::error(dataset + " corpus in " + (root.empty() ? kFortunesRoot : root) +
                         ": too little text (" + std::to_string(streams.train.numel()) +
                         " training bytes)");
  }
  return streams;
}

TokenStreams synthetic_tokens(int64_t vocab, int64_t train_tokens, int64_t validation_tokens,
                              uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(data::mix_seed(seed));
  TokenStreams streams;
  streams.train = torch::randint(vocab, {train_tokens}, generator, torch::kLong);
  streams.validation = torch::randint(vocab, {validation_tokens}, generator, torch::kLong);
  return streams;
}

data::ImageSplit token_windows(const torch::Tensor& tokens, int64_t seq_len, int64_t vocab,
                               int64_t limit) {
  int64_t count = std::max<int64_t>(0, (tokens.numel() - 1) / seq_len);
  if (limit > 0) count = std::min(count, limit);
  if (count == 0) {
    const int64_t planes = vocab <= kByteValues ? 1 : 2;
    return data::ImageSplit{torch::empty({0, planes, 1, seq_len + 1}, torch::kUInt8),
                            torch::empty({0}, torch::kLong)};
  }
  torch::Tensor windows =
      tokens.narrow(0, 0, count * seq_len + 1).unfold(0, seq_len + 1, seq_len);  // [N, T + 1]
  torch::Tensor planes =
      vocab <= kByteValues
          ? windows.unsqueeze(1)
          : torch::stack({windows.div(kByteValues, "floor"), windows.remainder(kByteValues)}, 1);
  return data::ImageSplit{planes.unsqueeze(2).to(torch::kUInt8).contiguous(),
                          torch::zeros({count}, torch::kLong)};
}

torch::Tensor window_tokens(const torch::Tensor& images) {
  torch::Tensor planes = images.round().to(torch::kLong).squeeze(2);  // [B, planes, T + 1]
  if (planes.size(1) == 1) return planes.select(1, 0);
  return planes.select(1, 0) * kByteValues + planes.select(1, 1);
}

const data::ChannelStats& token_plane_stats(int64_t planes) {
  static const data::ChannelStats one{{0.0}, {1.0 / 255.0}};
  static const data::ChannelStats two{{0.0, 0.0}, {1.0 / 255.0, 1.0 / 255.0}};
  return planes == 1 ? one : two;
}

double unigram_entropy_nats(const torch::Tensor& tokens) {
  torch::Tensor counts = torch::bincount(tokens.flatten()).to(torch::kDouble);
  torch::Tensor p = counts.index({counts > 0}) / counts.sum();
  return -(p * p.log()).sum().item<double>();
}

}  // namespace scalestudy::lm
