// Checkpoint and resume of scalestudy-train on the CPU: a run stopped at a step boundary
// (by the test flag, by SIGTERM to one rank of two, by SIGKILL after periodic checkpoints)
// and run again in the same --out-dir ends with bit-identical weights to an uninterrupted
// run of the same seed, and its run record reads as one run: every step once, each
// attempt's warm-up excluded from the measured totals, the attempts listed.
// clang-format off
#include "tests/harness/torch_doctest.hpp"  // before run_database_reader.hpp includes doctest
// clang-format on

#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "harness/core/exit_codes.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/dumped_params.hpp"
#include "tests/harness/resume_runs.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/free_port.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;
using testing::db_number;
using testing::db_text;
using testing::load_params;
using testing::max_difference;
using testing::wait_for_finished_epoch;

using testing::on_two_ranks;
using testing::resume_train_command;
using Shape = testing::ResumeShape;
constexpr int kWarmupSteps = testing::kResumeWarmupSteps;
// A pause after every step for the cases that signal a run once its first epoch is seen:
// its 60-step second epoch then lasts 15 s or more, so the signal lands inside the run
// however fast the machine (the pause changes no number; a checkpoint ignores it).
const char kSecondEpochDelayMs[] = "250";

// The final weights of an uninterrupted run of `shape` on `ranks` ranks, computed once per
// shape and world size. A resumed run is compared with the run of its own world size: runs
// on 1 rank of 16 and 2 ranks of 8 agree only to rounding, which training amplifies (their
// final weights differ by 0.35 after the 120 steps of the 60-step shape).
const std::vector<torch::Tensor>& reference_params(const Shape& shape, int ranks = 1) {
  static std::map<std::string, std::vector<torch::Tensor>> cache;
  const std::string key = shape.optimizer + std::to_string(shape.epochs) + "x" +
                          std::to_string(shape.steps_per_epoch) + "x" + std::to_string(ranks);
  if (cache.count(key) == 0) {
    const std::string dir = testing::fresh_dir("resume-reference-" + key);
    std::vector<std::string> command = resume_train_command(dir, shape);
    if (ranks == 2) command = on_two_ranks(command);
    auto run = testing::run_to_end(command, {}, dir + "/out.txt", 180);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    cache[key] = load_params(dir + "/params.pt");
  }
  return cache[key];
}

// What every resumed run's record must say: one run of all its steps, completed after
// `attempts` attempts, each attempt's first kWarmupSteps steps marked warm-up. An attempt
// killed outright (SIGKILL) cannot list itself: `killed` skips the attempts' sum.
void check_record_of_resumed_run(const std::string& db, const Shape& shape, int attempts,
                                 bool killed = false) {
  const int total_steps = 2 * shape.steps_per_epoch;
  CHECK(db_text(db, "SELECT status FROM run") == "completed");
  CHECK(db_number(db, "SELECT count(DISTINCT global_step) FROM steps") == total_steps);
  CHECK(db_number(db, "SELECT max(global_step) FROM steps") == total_steps - 1);
  CHECK(db_number(db, "SELECT count(*) FROM epochs") == 2);
  CHECK(db_number(db, "SELECT value FROM summary WHERE name = 'attempts'") == attempts);
  CHECK(db_number(db, "SELECT count(*) FROM steps WHERE warmup = 1") == kWarmupSteps * attempts);
  // The attempts' measured steps add up to the run's, warm-ups excluded.
  if (!killed) {
    CHECK(db_number(db,
                    "SELECT sum(CAST(value AS INTEGER)) FROM provenance "
                    "WHERE key LIKE 'attempt.%.measured_steps'") ==
          total_steps - kWarmupSteps * attempts);
  }
  CHECK(db_number(db, "SELECT value > 0 FROM summary WHERE name = 'samples_per_s'") == 1);
  CHECK_FALSE(fs::exists(fs::path(db).parent_path() / "checkpoint"));
}

// A --target-val-loss that a validation loss of exactly `loss` reaches (loss <= target),
// written without rounding.
std::string reached_at(double loss) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", std::nextafter(loss, HUGE_VAL));
  return text;
}

}  // namespace

TEST_CASE("a run stopped at a step resumes to the weights of an uninterrupted run") {
  struct Case {
    Shape shape;
    int stop_step;
    bool two_ranks;
  };
  for (const Case& stopped : {
           Case{{12, "sgd"}, 7, false},     // mid-epoch, SGD momentum
           Case{{12, "adamw"}, 12, false},  // at the epoch boundary, Adam moments
           Case{{12, "sgd"}, 17, true},     // 2 ranks under scalestudy-launch
       }) {
    const std::string name = stopped.shape.optimizer + "-" + std::to_string(stopped.stop_step) +
                             (stopped.two_ranks ? "-2ranks" : "");
    INFO(name);
    const std::string dir = testing::fresh_dir("resume-" + name);
    std::vector<std::string> command = resume_train_command(
        dir, stopped.shape, {"--checkpoint-stop-at-step", std::to_string(stopped.stop_step)});
    if (stopped.two_ranks) command = on_two_ranks(command);
    auto first = testing::run_to_end(command, {}, dir + "/first.txt", 180);
    INFO(first.output);
    REQUIRE(first.exit_code == exit_codes::kCheckpointed);
    const std::string db = dir + "/rank0.sqlite";
    CHECK(db_text(db, "SELECT status FROM run") == "failed");
    CHECK(db_text(db, "SELECT failure_reason FROM run")
              .find("checkpointed at global step " + std::to_string(stopped.stop_step)) !=
          std::string::npos);
    CHECK(fs::exists(dir + "/checkpoint/MANIFEST"));
    CHECK(fs::exists(dir + "/checkpoint/step-" + std::to_string(stopped.stop_step) + "/rank0.pt"));

    auto second = testing::run_to_end(command, {}, dir + "/second.txt", 180);
    INFO(second.output);
    REQUIRE(second.exit_code == 0);
    CHECK(second.output.find("Resumed at global step " + std::to_string(stopped.stop_step)) !=
          std::string::npos);
    check_record_of_resumed_run(db, stopped.shape, 2);
    if (stopped.two_ranks) check_record_of_resumed_run(dir + "/rank1.sqlite", stopped.shape, 2);
    CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'attempt.1.end_step'") ==
          std::to_string(stopped.stop_step));
    CHECK(db_text(db, "SELECT value FROM provenance WHERE key = 'attempt.2.first_step'") ==
          std::to_string(stopped.stop_step));
    CHECK(max_difference(load_params(dir + "/params.pt"),
                         reference_params(stopped.shape, stopped.two_ranks ? 2 : 1)) == 0);
  }
}

TEST_CASE("SIGTERM to one rank of two: both stop at the same step, checkpoint, exit 75") {
  const Shape shape{60, "sgd"};
  const std::string dir = testing::fresh_dir("resume-sigterm");
  auto start_ranks = [&](const std::string& attempt) {
    std::map<std::string, std::string> env = {
        {"WORLD_SIZE", "2"},
        {"LOCAL_WORLD_SIZE", "2"},
        {"MASTER_ADDR", "127.0.0.1"},
        {"MASTER_PORT", std::to_string(testing::free_port())}};
    std::vector<std::unique_ptr<testing::ChildProcess>> ranks;
    for (int rank = 0; rank < 2; ++rank) {
      env["RANK"] = env["LOCAL_RANK"] = std::to_string(rank);
      ranks.push_back(std::make_unique<testing::ChildProcess>(
          resume_train_command(dir, shape,
                               {"--batch-size", "8", "--stop-check-every", "3",
                                "--test-step-delay-ms", kSecondEpochDelayMs}),
          env, dir + "/" + attempt + std::to_string(rank) + ".txt"));
    }
    return ranks;
  };
  auto first = start_ranks("first");
  CHECK(wait_for_finished_epoch(dir + "/rank0.sqlite", std::chrono::seconds(120)));
  first[1]->signal(SIGTERM);  // rank 0 hears of it only through the stop all-reduce
  int code0 = first[0]->wait(60), code1 = first[1]->wait(60);
  INFO(first[0]->output() << first[1]->output());
  REQUIRE(code0 == exit_codes::kCheckpointed);
  REQUIRE(code1 == exit_codes::kCheckpointed);
  const std::string reason0 = db_text(dir + "/rank0.sqlite", "SELECT failure_reason FROM run");
  const std::string reason1 = db_text(dir + "/rank1.sqlite", "SELECT failure_reason FROM run");
  CHECK(reason0.find("after a signal to another rank") != std::string::npos);
  CHECK(reason1.find("after SIGTERM") != std::string::npos);
  // The same step on both: "checkpointed at global step N after ...".
  CHECK(reason0.substr(0, reason0.find(" after")) == reason1.substr(0, reason1.find(" after")));

  auto second = start_ranks("second");
  CHECK(second[0]->wait(120) == 0);
  CHECK(second[1]->wait(120) == 0);
  INFO(second[0]->output());
  check_record_of_resumed_run(dir + "/rank0.sqlite", shape, 2);
  CHECK(max_difference(load_params(dir + "/params.pt"), reference_params(shape, 2)) == 0);
}

TEST_CASE("a killed run resumes from its last periodic checkpoint, redoing the later steps") {
  const Shape shape{60, "sgd"};
  const std::string dir = testing::fresh_dir("resume-periodic");
  const std::vector<std::string> command = resume_train_command(
      dir, shape, {"--checkpoint-every", "10", "--test-step-delay-ms", kSecondEpochDelayMs});
  {
    testing::ChildProcess first(command, {}, dir + "/first.txt");
    REQUIRE(first.started());
    CHECK(wait_for_finished_epoch(dir + "/rank0.sqlite", std::chrono::seconds(120)));
    first.signal(SIGKILL);
    first.wait(30);
  }
  REQUIRE(fs::exists(dir + "/checkpoint/MANIFEST"));
  auto second = testing::run_to_end(command, {}, dir + "/second.txt", 180);
  INFO(second.output);
  REQUIRE(second.exit_code == 0);
  CHECK(second.output.find("Resumed at global step ") != std::string::npos);
  check_record_of_resumed_run(dir + "/rank0.sqlite", shape, 2, /*killed=*/true);
  CHECK(max_difference(load_params(dir + "/params.pt"), reference_params(shape)) == 0);
}

TEST_CASE("time to target sums every attempt; a target reached before the stop stays") {
  // 4 epochs of 6 steps, each step paused 100 ms so that an epoch's training (0.6 s or more)
  // outweighs its validation: a time that lost a finished epoch would be visibly short.
  const Shape shape{6, "sgd", 4};
  const std::vector<std::string> slow = {"--test-step-delay-ms", "100"};
  const std::string reference_dir = testing::fresh_dir("target-reference");
  auto reference = testing::run_to_end(resume_train_command(reference_dir, shape, slow), {},
                                       reference_dir + "/out.txt", 180);
  INFO(reference.output);
  REQUIRE(reference.exit_code == 0);
  std::vector<double> val_loss;
  for (int epoch = 1; epoch <= shape.epochs; ++epoch) {
    val_loss.push_back(
        db_number(reference_dir + "/rank0.sqlite",
                  "SELECT val_loss FROM epochs WHERE epoch = " + std::to_string(epoch)));
  }
  // The first epoch that attains the lowest validation loss reaches a target of that loss
  // exactly there; this seed's losses fall, so it is epoch 3 or 4 (checked).
  const auto lowest = std::min_element(val_loss.begin(), val_loss.end());
  const int late_epoch = static_cast<int>(lowest - val_loss.begin()) + 1;
  REQUIRE(late_epoch >= 3);

  struct Case {
    std::string name;
    double target_loss;
    int stop_step;  // in epoch 2 (steps 6..11) or 3 (12..17)
    int expected_epoch;
  };
  for (const Case& stopped : {Case{"reached after the stop", *lowest, 8, late_epoch},
                              Case{"reached before the stop", val_loss[0], 14, 1}}) {
    INFO(stopped.name);
    const std::string dir = testing::fresh_dir("target-" + std::to_string(stopped.stop_step));
    std::vector<std::string> command = resume_train_command(
        dir, shape,
        {"--test-step-delay-ms", "100", "--target-val-loss", reached_at(stopped.target_loss),
         "--checkpoint-stop-at-step", std::to_string(stopped.stop_step)});
    auto first = testing::run_to_end(command, {}, dir + "/first.txt", 180);
    INFO(first.output);
    REQUIRE(first.exit_code == exit_codes::kCheckpointed);
    auto second = testing::run_to_end(command, {}, dir + "/second.txt", 180);
    INFO(second.output);
    REQUIRE(second.exit_code == 0);
    const std::string db = dir + "/rank0.sqlite";
    CHECK(db_number(db, "SELECT value FROM summary WHERE name = 'time_to_target_epoch'") ==
          stopped.expected_epoch);
    // Every epoch's training up to the target, over both attempts (the epochs table adds an
    // epoch's earlier attempt in), plus its validations: at least their sum, less than the
    // next epoch on top.
    const std::string upto = std::to_string(stopped.expected_epoch);
    const double trained_s =
        db_number(db, "SELECT sum(epoch_s) FROM epochs WHERE epoch <= " + upto);
    const double to_target_s =
        db_number(db, "SELECT value FROM summary WHERE name = 'time_to_target_s'");
    CHECK(to_target_s >= trained_s);
    if (stopped.expected_epoch < shape.epochs) {
      CHECK(to_target_s <
            trained_s + db_number(db, "SELECT epoch_s FROM epochs WHERE epoch = " + upto + " + 1"));
    }
  }
}

TEST_CASE("a checkpoint of another configuration is refused, not resumed") {
  const Shape shape;
  const std::string dir = testing::fresh_dir("resume-mismatch");
  auto first =
      testing::run_to_end(resume_train_command(dir, shape, {"--checkpoint-stop-at-step", "5"}), {},
                          dir + "/first.txt", 120);
  REQUIRE(first.exit_code == exit_codes::kCheckpointed);
  auto other = testing::run_to_end(resume_train_command(dir, shape, {"--lr", "0.2"}), {},
                                   dir + "/other.txt", 120);
  CHECK(other.exit_code == 1);
  CHECK(other.output.find("--lr '0.05' there, '0.2' here") != std::string::npos);
  CHECK(other.output.find("refusing to resume") != std::string::npos);
  CHECK(db_text(dir + "/rank0.sqlite", "SELECT failure_reason FROM run").find("refusing") !=
        std::string::npos);
  CHECK(fs::exists(dir + "/checkpoint/MANIFEST"));  // left for the run it belongs to
}

}  // namespace scalestudy
