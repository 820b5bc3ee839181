// scalestudy-lm's parts: the GPT's parameters and causality, the FLOP rule against the
// harness's counter at two sizes, the corpus loader on text files the test writes and on
// Debian's fortunes package, token windows through the image loaders' float conversion
// (one and two byte planes), and the flags' presets and errors.
#include <filesystem>
#include <fstream>
#include <set>

#include "harness/data/batch_assembly.hpp"
#include "harness/models/flop_counter.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "tests/support/skip.hpp"
#include "workloads/lm/gpt.hpp"
#include "workloads/lm/lm_config.hpp"
#include "workloads/lm/token_corpus.hpp"

namespace scalestudy {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Rule FLOPs per token over the counter's (3 x forward per sequence / seq_len).
double rule_over_counted(const lm::GptConfig& config) {
  lm::Gpt gpt(config);
  int64_t parameters = 0;
  for (const torch::Tensor& parameter : gpt->parameters()) parameters += parameter.numel();
  torch::nn::AnyModule any(gpt);
  auto cost = models::forward_cost_of(any, torch::zeros({1, config.seq_len}, torch::kLong));
  REQUIRE_MESSAGE(cost, cost.status().message());
  const double counted_per_token = 3 * cost->flops() / static_cast<double>(config.seq_len);
  return lm::training_flops_per_token(config, parameters) / counted_per_token;
}

}  // namespace

TEST_CASE("the GPT has GPT-2's parameters under nanoGPT's names, counted by the formula") {
  const lm::GptConfig tiny;  // 4 layers, 4 heads, 128 wide, 128 context, 256 tokens
  lm::Gpt gpt(tiny);
  std::set<std::string> names;
  int64_t count = 0;
  for (const auto& item : gpt->named_parameters()) {
    names.insert(item.key());
    count += item.value().numel();
  }
  CHECK(count == lm::gpt_parameter_count(tiny));
  CHECK(count == 842496);
  for (const char* name : {"wte.weight", "wpe.weight", "h.0.ln_1.weight", "h.0.attn.c_attn.weight",
                           "h.0.attn.c_proj.bias", "h.3.mlp.c_fc.weight", "h.3.mlp.c_proj.weight",
                           "h.3.ln_2.bias", "ln_f.weight"}) {
    CHECK_MESSAGE(names.count(name) == 1, name);
  }
  CHECK(names.size() == 4 + 12 * 4);  // the head is tied: no parameter of its own
  // GPT-2 small's 124M at nanoGPT's padded vocabulary (counted, not built: 0.5 GB).
  auto small = lm::find_gpt_preset("small");
  REQUIRE(small);
  CHECK(lm::gpt_parameter_count(small->shape) == 124475904);
}

TEST_CASE("a token's logits depend on the tokens before it only (causal attention)") {
  torch::manual_seed(3);
  lm::GptConfig config;
  config.n_layer = 2;
  config.d_model = 32;
  config.seq_len = 16;
  lm::Gpt gpt(config);
  gpt->eval();
  torch::NoGradGuard no_grad;
  torch::Tensor tokens = torch::randint(256, {2, 16}, torch::kLong);
  torch::Tensor changed = tokens.clone();
  changed.index_put_({torch::indexing::Slice(), 10}, (tokens.select(1, 10) + 1) % 256);
  torch::Tensor before = gpt(tokens), after = gpt(changed);
  CHECK(before.sizes() == torch::IntArrayRef({2, 16, 256}));
  CHECK(torch::equal(before.narrow(1, 0, 10), after.narrow(1, 0, 10)));
  CHECK_FALSE(torch::allclose(before.narrow(1, 10, 6), after.narrow(1, 10, 6)));
}

TEST_CASE("6N + 12·L·d·T matches the counted training FLOPs within 5% at two sizes") {
  lm::GptConfig tiny;
  lm::GptConfig wider;
  wider.n_layer = 6;
  wider.n_head = 8;
  wider.d_model = 256;
  wider.seq_len = 256;
  for (const lm::GptConfig& config : {tiny, wider}) {
    const double ratio = rule_over_counted(config);
    CAPTURE(config.d_model);
    CAPTURE(ratio);
    MESSAGE("rule / counted at d_model " << config.d_model << ": " << ratio);
    CHECK(ratio > 0.95);
    CHECK(ratio < 1.05);
  }
}

TEST_CASE("a text folder splits each *.txt file 90/10 in name order") {
  const std::filesystem::path dir = testing::fresh_dir("lm-corpus");
  write_file(dir / "b.txt", std::string(100, 'b'));
  write_file(dir / "a.txt", std::string(50, 'a'));
  write_file(dir / "notes.md", "not text of the corpus");
  auto streams = lm::load_byte_corpus("text", dir.string());
  REQUIRE_MESSAGE(streams, streams.status().message());
  CHECK(streams->files == 2);
  REQUIRE(streams->train.numel() == 45 + 90);
  CHECK(streams->train[0].item<int64_t>() == 'a');
  CHECK(streams->train[45].item<int64_t>() == 'b');
  CHECK(streams->validation.numel() == 5 + 10);
  auto one_file = lm::load_byte_corpus("text", (dir / "b.txt").string());
  REQUIRE(one_file);
  CHECK(one_file->train.numel() == 90);
}

TEST_CASE("a corpus that is not there, or empty, is an error naming the place") {
  auto missing = lm::load_byte_corpus("fortunes", "/nonexistent/fortunes");
  REQUIRE_FALSE(missing);
  CHECK(missing.status().message().find("/nonexistent/fortunes") != std::string::npos);
  CHECK(missing.status().message().find("fortunes package") != std::string::npos);
  const std::filesystem::path empty = testing::fresh_dir("lm-corpus-empty");
  auto nothing = lm::load_byte_corpus("text", empty.string());
  REQUIRE_FALSE(nothing);
  CHECK(nothing.status().message().find("no *.txt file in " + empty.string()) != std::string::npos);
  CHECK_FALSE(lm::load_byte_corpus("text", ""));
}

TEST_CASE("Debian's fortunes package is a corpus of about 2.5 MB of English text") {
  if (!std::filesystem::exists(std::string(lm::kFortunesRoot) + "/fortunes")) {
    SKIP_UNLESS_INSTALLED(lm::kFortunesRoot << " is not installed (apt install fortunes)");
  }
  auto streams = lm::load_byte_corpus("fortunes", "");
  REQUIRE_MESSAGE(streams, streams.status().message());
  CHECK(streams->files >= 40);
  CHECK(streams->train.numel() > 2000000);
  CHECK(streams->validation.numel() > 200000);
  const double entropy = lm::unigram_entropy_nats(streams->train);
  MESSAGE("unigram entropy of fortunes' training bytes: " << entropy << " nats");
  CHECK(entropy > 2.5);  // English bytes: about 4.3-4.5 bits
  CHECK(entropy < 3.5);
}

TEST_CASE("windows survive the image loaders' float conversion, in one or two byte planes") {
  for (int64_t vocab : {256, 50304}) {
    CAPTURE(vocab);
    torch::Tensor tokens = torch::randint(vocab, {1 + 5 * 8}, torch::kLong);
    data::ImageSplit windows = lm::token_windows(tokens, 8, vocab, 0);
    REQUIRE(windows.size() == 5);
    CHECK(windows.images.size(1) == (vocab <= 256 ? 1 : 2));
    data::Batch batch = data::assemble_batch(windows, torch::arange(5),
                                             lm::token_plane_stats(windows.images.size(1)),
                                             data::AugmentOptions(), 0);
    torch::Tensor back = lm::window_tokens(batch.images);
    REQUIRE(back.sizes() == torch::IntArrayRef({5, 9}));
    CHECK(torch::equal(back.select(0, 0), tokens.narrow(0, 0, 9)));
    CHECK(torch::equal(back.select(0, 4), tokens.narrow(0, 32, 9)));  // stride 8
  }
  CHECK(lm::token_windows(torch::zeros({100}, torch::kLong), 8, 256, 3).size() == 3);
  CHECK(lm::token_windows(torch::zeros({8}, torch::kLong), 8, 256, 0).size() == 0);  // too short
}

TEST_CASE("a preset fills the shape the command line left unset; bad shapes name the flag") {
  auto resolve = [](std::vector<std::string> args) {
    train::Flags flags;
    lm::declare_lm_flags(flags);
    flags.declare("batch-size", "64", "");
    REQUIRE(flags.parse(args));
    lm::derive_lm_defaults(flags);
    return std::make_pair(lm::resolve_lm_config(flags), flags.get("batch-size"));
  };
  auto [small, batch] = resolve({"--preset", "small", "--dataset", "synthetic"});
  REQUIRE(small);
  CHECK(small->model.n_layer == 12);
  CHECK(small->model.vocab == 50304);
  CHECK(batch == "8");
  auto [bytes, bytes_batch] = resolve({"--preset", "small", "--seq-len", "256"});
  REQUIRE(bytes);
  CHECK(bytes->model.vocab == 256);
  CHECK(bytes->model.seq_len == 256);
  auto [odd, odd_batch] = resolve({"--d-model", "100", "--n-head", "3"});
  REQUIRE_FALSE(odd);
  CHECK(odd.status().message().find("--d-model 100 is not a multiple of --n-head 3") !=
        std::string::npos);
  auto [narrow, narrow_batch] = resolve({"--vocab", "100"});
  REQUIRE_FALSE(narrow);
  CHECK(narrow.status().message().find("--vocab 100") != std::string::npos);
}

}  // namespace scalestudy
