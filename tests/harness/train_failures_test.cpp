// Failure paths of scalestudy-train: each must exit non-zero quickly, say why on stderr,
// and leave a run record marked failed with the reason.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "tests/harness/child_process.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/free_port.hpp"

namespace scalestudy {
namespace {

using testing::binary;
using testing::db_text;

// A fast synthetic run; `extra` flags are appended (later flags win).
std::vector<std::string> train_command(const std::string& out_dir,
                                       std::vector<std::string> extra = {}) {
  std::vector<std::string> command = {binary("scalestudy-train"),
                                      "--out-dir",
                                      out_dir,
                                      "--run-id",
                                      "failtest",
                                      "--dataset",
                                      "synthetic",
                                      "--model",
                                      "small-cnn",
                                      "--batch-size",
                                      "16",
                                      "--threads",
                                      "1",
                                      "--telemetry-interval-ms",
                                      "50"};
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

void check_failed_record(const std::string& db, const std::string& reason_part) {
  CHECK(db_text(db, "SELECT status FROM run") == "failed");
  std::string reason = db_text(db, "SELECT failure_reason FROM run");
  CHECK_MESSAGE(reason.find(reason_part) != std::string::npos, reason);
  CHECK(db_text(db, "SELECT finished_at IS NOT NULL FROM run") == "1");
}

}  // namespace

TEST_CASE("an unknown flag names the nearest known one and fails the record") {
  std::string dir = testing::fresh_dir("train-badflag");
  auto run = testing::run_to_end(train_command(dir, {"--learning-rate", "0.1", "--epochs", "1"}),
                                 {}, dir + "/out.txt", 60);
  CHECK(run.exit_code == 1);
  CHECK(run.output.find("unknown flag --learning-rate") != std::string::npos);
  check_failed_record(dir + "/rank0.sqlite", "unknown flag --learning-rate");

  auto typo = testing::run_to_end(train_command(dir, {"--epoch", "2"}), {}, dir + "/out2.txt", 60);
  CHECK(typo.exit_code == 1);
  CHECK(typo.output.find("did you mean --epochs?") != std::string::npos);
}

TEST_CASE("bad values, missing data and unsupported precision fail with a clear reason") {
  std::string dir = testing::fresh_dir("train-badinput");
  struct Case {
    std::vector<std::string> flags;
    std::string reason;
  };
  for (const Case& bad : {
           Case{{"--batch-size", "many"}, "--batch-size: 'many' is not an integer"},
           Case{{"--precision", "fp16"}, "--precision fp16 needs a CUDA device"},
           Case{{"--dataset", "fashion-mnist", "--data-root", dir + "/absent"}, dir + "/absent"},
           Case{{"--model", "resnet9000"}, "resnet9000"},
           Case{{"--world-size", "4"}, "--world-size 4 but the launcher (single) started 1 ranks"},
       }) {
    INFO(bad.reason);
    auto run = testing::run_to_end(train_command(dir, bad.flags), {}, dir + "/out.txt", 60);
    CHECK(run.exit_code == 1);
    CHECK(run.output.find(bad.reason) != std::string::npos);
    check_failed_record(dir + "/rank0.sqlite", bad.reason);
  }
}

TEST_CASE("a completed run records provenance, steps, epochs, summary and telemetry") {
  std::string dir = testing::fresh_dir("train-ok");
  auto run = testing::run_to_end(
      train_command(dir, {"--epochs", "2", "--steps-per-epoch", "6", "--val-samples", "64",
                          "--measure-warmup-steps", "2"}),
      {{"OMP_SCHEDULE", "static"}}, dir + "/out.txt", 120);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("Epoch [2/2] LR 0.1000 | Loss (train, val) ") != std::string::npos);
  std::string db = dir + "/rank0.sqlite";
  CHECK(db_text(db, "SELECT status || ' ' || backend || ' ' || world_size FROM run") ==
        "completed none 1");
  CHECK(db_text(db, "SELECT count(*) FROM steps") == "12");
  CHECK(db_text(db, "SELECT sum(warmup) FROM steps") == "2");
  CHECK(db_text(db,
                "SELECT count(*) FROM steps WHERE forward_ms > 0 AND backward_ms > 0 "
                "AND step_ms >= forward_ms + backward_ms AND loss > 0") == "12");
  CHECK(db_text(db,
                "SELECT count(*) FROM epochs WHERE val_acc BETWEEN 0 AND 1 "
                "AND samples_per_s > 0") == "2");
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'env.OMP_SCHEDULE'") == "static");
  CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'intra_op_threads'") == "1");
  CHECK(db_text(db, "SELECT count(*) FROM telemetry WHERE cpu_rss_bytes > 0") != "0");
  for (const char* name :
       {"samples_per_s", "step_ms_median", "cpu_rss_peak_bytes", "gradient_bytes", "bucket_count",
        "parameters", "forward_flops", "final_val_acc"}) {
    INFO(name);
    CHECK(db_text(db, std::string("SELECT value > 0 FROM summary WHERE name = '") + name + "'") ==
          "1");
  }
}

TEST_CASE("without --checkpoint-on-signal, SIGTERM ends the run at once with a failed record") {
  std::string dir = testing::fresh_dir("train-sigterm");
  testing::ChildProcess child(
      train_command(dir, {"--epochs", "1000", "--steps-per-epoch", "5", "--val-samples", "64",
                          "--checkpoint-on-signal", "false"}),
      {}, dir + "/out.txt");
  REQUIRE(child.started());
  std::string db = dir + "/rank0.sqlite";
  CHECK(testing::wait_for_finished_epoch(db, std::chrono::seconds(60)));
  child.signal(SIGTERM);
  CHECK(child.wait(30) == 128 + SIGTERM);
  check_failed_record(db, "terminated by signal SIGTERM");
}

TEST_CASE("when a peer dies or hangs, the survivor exits within the timeout and says why") {
  // The timeout also bounds the ranks' rendezvous and every collective before the signal:
  // long enough that a loaded machine starting or stepping one rank late does not trip it.
  constexpr int kTimeoutS = 15;
  for (int signal_number : {SIGKILL, SIGSTOP}) {
    INFO("signal " << signal_number);
    std::string dir = testing::fresh_dir("train-peer-" + std::to_string(signal_number));
    std::map<std::string, std::string> env = {
        {"WORLD_SIZE", "2"},
        {"LOCAL_WORLD_SIZE", "2"},
        {"MASTER_ADDR", "127.0.0.1"},
        {"MASTER_PORT", std::to_string(testing::free_port())}};
    std::vector<std::unique_ptr<testing::ChildProcess>> ranks;
    for (int rank = 0; rank < 2; ++rank) {
      env["RANK"] = env["LOCAL_RANK"] = std::to_string(rank);
      ranks.push_back(std::make_unique<testing::ChildProcess>(
          train_command(dir, {"--epochs", "1000", "--steps-per-epoch", "5", "--val-samples", "64",
                              "--timeout-s", std::to_string(kTimeoutS)}),
          env, dir + "/out" + std::to_string(rank) + ".txt"));
    }
    std::string db = dir + "/rank0.sqlite";
    CHECK(testing::wait_for_finished_epoch(db, std::chrono::seconds(60)));
    ranks[1]->signal(signal_number);
    auto signalled = std::chrono::steady_clock::now();
    int code = ranks[0]->wait(kTimeoutS + 30);
    double waited_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
    INFO(ranks[0]->output());
    CHECK(code == 1);
    CHECK(waited_s < kTimeoutS + 10);
    check_failed_record(db, "peer rank died or timed out");
    ranks[1]->signal(SIGKILL);
  }
}

}  // namespace scalestudy
