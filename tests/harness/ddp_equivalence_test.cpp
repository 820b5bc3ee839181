// DDP correctness: 2 ranks with global batch B must end with the same weights as 1 rank
// with batch B on the same samples (small-cnn has no batch norm; SGD with momentum), with
// gradient buckets overlapping backward and with one all-reduce after it; and 1 rank given a
// process group (--one-rank-process-group) runs its buckets through gloo to the same weights.
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

// Trains one rank to the end; the run must succeed (its output shown when it did not).
void train_one_rank(const std::vector<std::string>& flags, const std::string& log) {
  auto run = testing::run_to_end(flags, {}, log, 120);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
}

}  // namespace

TEST_CASE("2 ranks x batch 16 end with the weights of 1 rank x batch 32") {
  std::string dir = testing::fresh_dir("ddp-equivalence");
  train_one_rank(train_flags(dir + "/one", 32, "true"), dir + "/one.txt");
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

TEST_CASE("1 rank with a process group reduces its buckets through gloo and keeps the weights") {
  std::string dir = testing::fresh_dir("ddp-one-rank-group");
  train_one_rank(train_flags(dir + "/plain", 32, "true"), dir + "/plain.txt");
  std::vector<std::string> flags = train_flags(dir + "/group", 32, "true");
  flags.insert(flags.end(), {"--one-rank-process-group", "true"});
  train_one_rank(flags, dir + "/group.txt");

  const std::string db = dir + "/group/rank0.sqlite";
  CHECK(testing::db_text(db, "SELECT status || ' ' || world_size || ' ' || backend FROM run") ==
        "completed 1 gloo");
  CHECK(testing::db_text(db, "SELECT value FROM provenance WHERE key = 'process_group_store'") ==
        "HashStore");
  CHECK(testing::db_number(db, "SELECT value FROM summary WHERE name = 'bucket_count'") > 1);
  // The buckets were reduced: the measured steps' all-reduces were timed and their
  // arrivals recorded, which the self communicator of the plain run never does.
  CHECK(testing::db_number(db,
                           "SELECT COUNT(*) FROM summary WHERE name = "
                           "'allreduce_span_ms_median'") == 1);
  CHECK(testing::db_number(db, "SELECT COUNT(*) FROM arrivals") > 0);
  CHECK(testing::db_number(dir + "/plain/rank0.sqlite", "SELECT COUNT(*) FROM arrivals") == 0);

  std::vector<torch::Tensor> reference = load_params(dir + "/plain/params.pt");
  std::vector<torch::Tensor> bucketed = load_params(dir + "/group/params.pt");
  REQUIRE(bucketed.size() == reference.size());
  MESSAGE("max |w_group - w_plain| = " << max_difference(bucketed, reference));
  CHECK(max_difference(bucketed, reference) < 1e-6);
}

}  // namespace scalestudy
