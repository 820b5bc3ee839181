// Every step row of scalestudy-train carries its own step's loss, read on the host one step
// late (as the GPU path reads it, without a host synchronisation per step): the last step
// of each epoch too, on one rank and on two, and unchanged by checkpoints, which write the
// rows they hold. The epochs table's training loss, reduced from device-resident sums, is
// the reference.
// clang-format off
#include "tests/harness/torch_doctest.hpp"  // before run_database_reader.hpp includes doctest
// clang-format on

#include <map>
#include <string>
#include <vector>

#include "tests/harness/child_process.hpp"
#include "tests/harness/resume_runs.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

struct StepRow {
  int64_t epoch = 0;
  int64_t samples = 0;
  double loss = 0;
};

// Every step row of a rank's database by global step; a NULL loss fails the test.
std::map<int64_t, StepRow> step_rows(const std::string& db_path) {
  auto db = sqlite::Database::open(db_path, sqlite::OpenMode::kReadOnly);
  REQUIRE_MESSAGE(db, db.status().message());
  auto rows = db->query("SELECT global_step, epoch, samples, loss FROM steps");
  REQUIRE_MESSAGE(rows, rows.status().message());
  std::map<int64_t, StepRow> by_step;
  for (const auto& row : *rows) {
    const int64_t step = std::get<int64_t>(row[0]);
    CAPTURE(step);
    REQUIRE(std::holds_alternative<double>(row[3]));
    by_step[step] = {std::get<int64_t>(row[1]), std::get<int64_t>(row[2]),
                     std::get<double>(row[3])};
  }
  return by_step;
}

double train_loss(const std::string& db_path, int64_t epoch) {
  return testing::db_number(db_path,
                            "SELECT train_loss FROM epochs WHERE epoch = " + std::to_string(epoch));
}

testing::Finished train(const std::vector<std::string>& command, const std::string& dir) {
  auto run = testing::run_to_end(command, {}, dir + "/out.txt", 180);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  return run;
}

}  // namespace

TEST_CASE("one step per epoch: each step's row holds exactly that epoch's training loss") {
  const std::string dir = testing::fresh_dir("step-rows-single");
  train(testing::resume_train_command(dir, {1, "sgd", 3}, {"--measure-warmup-steps", "0"}), dir);
  const std::string db = dir + "/rank0.sqlite";
  const std::map<int64_t, StepRow> rows = step_rows(db);
  REQUIRE(rows.size() == 3);
  for (const auto& [step, row] : rows) {
    CAPTURE(step);
    CHECK(row.epoch == step + 1);
    CHECK(row.loss == train_loss(db, row.epoch));  // 16 × loss / 16: exact in binary
  }
}

TEST_CASE("on two ranks every step row has a loss, and each epoch's rows average to its loss") {
  const std::string dir = testing::fresh_dir("step-rows-pair");
  train(testing::on_two_ranks(testing::resume_train_command(dir, {4, "sgd", 2})), dir);
  std::map<int64_t, double> loss_sum, samples;  // by epoch, over both ranks
  for (const char* rank : {"rank0", "rank1"}) {
    const std::map<int64_t, StepRow> rows = step_rows(dir + "/" + rank + ".sqlite");
    CHECK(rows.size() == 8);
    for (const auto& [step, row] : rows) {
      loss_sum[row.epoch] += row.loss * static_cast<double>(row.samples);
      samples[row.epoch] += static_cast<double>(row.samples);
    }
  }
  for (int64_t epoch : {1, 2}) {
    CAPTURE(epoch);
    CHECK(loss_sum[epoch] / samples[epoch] ==
          doctest::Approx(train_loss(dir + "/rank0.sqlite", epoch)).epsilon(1e-12));
  }
}

TEST_CASE("checkpoints write the rows they hold, with the same losses") {
  const std::string plain_dir = testing::fresh_dir("step-rows-plain");
  const std::string checkpointed_dir = testing::fresh_dir("step-rows-checkpointed");
  const testing::ResumeShape shape{5, "sgd", 2};
  train(testing::resume_train_command(plain_dir, shape), plain_dir);
  train(testing::resume_train_command(checkpointed_dir, shape, {"--checkpoint-every", "3"}),
        checkpointed_dir);
  const std::map<int64_t, StepRow> plain = step_rows(plain_dir + "/rank0.sqlite");
  const std::map<int64_t, StepRow> checkpointed = step_rows(checkpointed_dir + "/rank0.sqlite");
  REQUIRE(plain.size() == 10);
  REQUIRE(checkpointed.size() == 10);
  for (const auto& [step, row] : plain) {
    CAPTURE(step);
    CHECK(checkpointed.at(step).loss == row.loss);
  }
}

}  // namespace scalestudy
