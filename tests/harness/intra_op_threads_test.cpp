// The auto intra-op thread count (harness/train/intra_op_threads.hpp): the rule itself, and
// a real CPU run that records what it chose.
#include "harness/train/intra_op_threads.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <thread>

#include "tests/harness/child_process.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy {
namespace {

using train::choose_intra_op_threads;
using train::kForwardFlopsPerThread;

std::vector<std::string> small_cnn_run(const std::string& out_dir, const std::string& threads) {
  return {testing::binary("scalestudy-train"),
          "--out-dir",
          out_dir,
          "--dataset",
          "synthetic",
          "--model",
          "small-cnn",
          "--batch-size",
          "2",
          "--epochs",
          "1",
          "--steps-per-epoch",
          "2",
          "--val-samples",
          "16",
          "--device",
          "cpu",
          "--threads",
          threads,
          "--telemetry-interval-ms",
          "0"};
}

}  // namespace

TEST_CASE("one thread per forward-work quantum, between 1 and the rank's cores") {
  CHECK(choose_intra_op_threads(8, 0.5 * kForwardFlopsPerThread).threads == 1);
  CHECK(choose_intra_op_threads(8, 1.0 * kForwardFlopsPerThread).threads == 1);
  CHECK(choose_intra_op_threads(8, 3.9 * kForwardFlopsPerThread).threads == 3);
  CHECK(choose_intra_op_threads(8, 100.0 * kForwardFlopsPerThread).threads == 8);
  CHECK(choose_intra_op_threads(0, 100.0 * kForwardFlopsPerThread).threads == 1);
  auto unknown = choose_intra_op_threads(4, 0);
  CHECK(unknown.threads == 4);
  CHECK(unknown.rule.find("unknown") != std::string::npos);
  CHECK(choose_intra_op_threads(8, 3.9 * kForwardFlopsPerThread).rule.find("MFLOP") !=
        std::string::npos);
}

TEST_CASE(
    "a CPU run on --threads 0 records the threads it chose and why, and its BLAS; --threads N is "
    "kept") {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::string dir = testing::fresh_dir("threads-auto");
  auto automatic =
      testing::run_to_end(small_cnn_run(dir + "/auto", "0"), {}, dir + "/auto.txt", 120);
  REQUIRE_MESSAGE(automatic.exit_code == 0, automatic.output);
  const std::string db = dir + "/auto/rank0.sqlite";
  // small-cnn on synthetic CIFAR shapes at batch 2 is about 17 MFLOP forward per step.
  double per_step =
      testing::db_number(db, "SELECT value FROM summary WHERE name = 'forward_flops'") * 2;
  REQUIRE(per_step < kForwardFlopsPerThread);
  CHECK(testing::db_text(db, "SELECT value FROM provenance WHERE key = 'intra_op_threads'") == "1");
  std::string rule =
      testing::db_text(db, "SELECT value FROM provenance WHERE key = 'intra_op_threads_rule'");
  CHECK_MESSAGE(rule.find("(" + std::to_string(cores) + ")") != std::string::npos, rule);

  // Debian's LibTorch links libblas.so.3, which the alternatives resolve: the run names the
  // file. scripts/install-deps.sh selects OpenBLAS's OpenMP build, which the thread rule
  // assumes (one libgomp pool); the reference BLAS would fall back silently.
  std::string blas =
      testing::db_text(db, "SELECT value FROM provenance WHERE key = 'blas_library'");
  CHECK_MESSAGE(std::filesystem::exists(blas), blas);
  if (testing::prerequisites_required()) {
    CHECK_MESSAGE(blas.find("openblas-openmp") != std::string::npos,
                  "install-deps.sh selects OpenBLAS's OpenMP build, but the run used " << blas);
  } else if (blas.find("openblas") == std::string::npos) {
    MESSAGE("not OpenBLAS (scripts/install-deps.sh selects it): " << blas);
  }

  auto fixed = testing::run_to_end(small_cnn_run(dir + "/fixed", "2"), {}, dir + "/fixed.txt", 120);
  REQUIRE_MESSAGE(fixed.exit_code == 0, fixed.output);
  const std::string fixed_db = dir + "/fixed/rank0.sqlite";
  CHECK(testing::db_text(fixed_db, "SELECT value FROM provenance WHERE key = 'intra_op_threads'") ==
        "2");
  CHECK(testing::db_text(fixed_db,
                         "SELECT COUNT(*) FROM provenance WHERE key = 'intra_op_threads_rule'") ==
        "0");
}

}  // namespace scalestudy
