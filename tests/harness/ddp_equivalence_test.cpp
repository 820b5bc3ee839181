// DDP correctness: 2 ranks with global batch B must end with the same weights as 1 rank
// with batch B on the same samples (small-cnn has no batch norm; SGD with momentum), with
// gradient buckets overlapping backward and with one all-reduce after it.
// clang-format off
#include "tests/harness/torch_doctest.hpp"  // before run_database_reader.hpp includes doctest
// clang-format on

#include <torch/torch.h>

#include "tests/harness/child_process.hpp"
#include "tests/harness/dumped_params.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

using testing::load_params;
using testing::max_difference;

std::vector<std::string> train_flags(const std::string& out_dir, int per_rank_batch,
                                     const std::string& overlap) {
  return {testing::binary("scalestudy-train"),
          "--out-dir",
          out_dir,
          "--dataset",
          "synthetic",
          "--model",
          "small-cnn",
          "--epochs",
          "2",
          "--steps-per-epoch",
          "4",
          "--batch-size",
          std::to_string(per_rank_batch),
          "--optimizer",
          "sgd",
          "--lr",
          "0.05",
          "--momentum",
          "0.9",
          "--seed",
          "11",
          "--threads",
          "1",
          "--val-samples",
          "64",
          "--bucket-cap-mb",
          "0.05",
          "--overlap",
          overlap,
          "--dump-params",
          out_dir + "/params.pt"};
}

}  // namespace

TEST_CASE("2 ranks x batch 16 end with the weights of 1 rank x batch 32") {
  std::string dir = testing::fresh_dir("ddp-equivalence");
  auto single =
      testing::run_to_end(train_flags(dir + "/one", 32, "true"), {}, dir + "/one.txt", 120);
  INFO(single.output);
  REQUIRE(single.exit_code == 0);
  std::vector<torch::Tensor> reference = load_params(dir + "/one/params.pt");
  REQUIRE(!reference.empty());

  for (const char* overlap : {"true", "false"}) {
    INFO("overlap " << std::string(overlap));
    std::string out = dir + "/two-" + overlap;
    std::vector<std::string> command = {testing::binary("scalestudy-launch"), "--nproc-per-node",
                                        "2", "--"};
    for (const std::string& flag : train_flags(out, 16, overlap)) command.push_back(flag);
    auto pair = testing::run_to_end(command, {}, out + ".txt", 180);
    INFO(pair.output);
    REQUIRE(pair.exit_code == 0);
    CHECK(testing::db_text(out + "/rank1.sqlite", "SELECT status || world_size FROM run") ==
          "completed2");
    double buckets = testing::db_number(out + "/rank0.sqlite",
                                        "SELECT value FROM summary WHERE name = 'bucket_count'");
    if (std::string(overlap) == "true")
      CHECK(buckets > 1);
    else
      CHECK(buckets == 1);

    std::vector<torch::Tensor> distributed = load_params(out + "/params.pt");
    REQUIRE(distributed.size() == reference.size());
    MESSAGE("overlap " << std::string(overlap) << ": max |w_2ranks - w_1rank| = "
                       << max_difference(distributed, reference));
    CHECK(max_difference(distributed, reference) < 1e-5);
  }

  // The comparison can tell runs apart: one step fewer moves the weights far more.
  std::vector<std::string> shorter = train_flags(dir + "/shorter", 32, "true");
  shorter.insert(shorter.end(), {"--steps-per-epoch", "3"});  // a later flag wins
  auto short_run = testing::run_to_end(shorter, {}, dir + "/shorter.txt", 120);
  REQUIRE(short_run.exit_code == 0);
  CHECK(max_difference(load_params(dir + "/shorter/params.pt"), reference) > 1e-3);
}

}  // namespace scalestudy
