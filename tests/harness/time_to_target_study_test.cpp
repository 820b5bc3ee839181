// Time-to-accuracy end to end (issue 30, item 3): a strong-scaling study of small-cnn on
// Fashion-MNIST at 1 and 2 CPU ranks with `target: {val_accuracy: 0.85}`, through the CLI
// and the local executor. Each run must record when global validation first reached 85%,
// and that record must agree with the run's own epoch table: the epoch is the first whose
// val_acc is >= 0.85, and the seconds lie within one validation interval (one epoch here)
// of that epoch's end (after its training, before the next epoch's training would end).
// The report (json and html) must carry time-to-target, its speedup and efficiency beside
// throughput efficiency, and no accuracy verdict from a single repeat. Its cost is bounded
// as convergence_test's: a class-balanced subset (30,000 training, 5,000 validation
// images) and 2 epochs, which reach 85% in epoch 2.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/harness/child_process.hpp"
#include "tests/harness/local_study.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

constexpr char kFashionMnist[] = "/usr/share/datasets/fashion-mnist";
constexpr char kStudy[] = "time-to-target";
constexpr double kTarget = 0.85;

void write_study(const std::string& path) {
  std::ofstream(path) << "study: " << kStudy << R"(
kind: strong
target: {val_accuracy: 0.85}
workload:
  model: small-cnn
  dataset: fashion-mnist
  train_samples: 30000
  val_samples: 5000
  epochs: 2
  eval_batch_size: 1000
  optimizer: sgd
  lr: 0.05
  momentum: 0.9
  log_interval: 0
  seed: 1
  threads: 1
scale: [1, 2]
global_batch: 64
slurm: {ranks_per_node: 2, cpus_per_task: 1}
)";
}

// Checks one run's recorded time to target against its own epoch table (rank 0's).
void check_against_epoch_table(const std::string& rank_db) {
  INFO(rank_db);
  REQUIRE(testing::db_number(rank_db,
                             "SELECT COUNT(*) FROM summary WHERE name = "
                             "'time_to_target_s'") == 1);
  CHECK(testing::db_number(rank_db,
                           "SELECT value FROM summary WHERE name = "
                           "'target_val_accuracy'") == doctest::Approx(kTarget));
  const double epoch =
      testing::db_number(rank_db, "SELECT value FROM summary WHERE name = 'time_to_target_epoch'");
  const double seconds =
      testing::db_number(rank_db, "SELECT value FROM summary WHERE name = 'time_to_target_s'");
  const double first_reached = testing::db_number(
      rank_db, "SELECT MIN(epoch) FROM epochs WHERE val_acc >= " + std::to_string(kTarget));
  CHECK(epoch == first_reached);
  const std::string through = std::to_string(static_cast<int>(epoch));
  const double trained_s =
      testing::db_number(rank_db, "SELECT SUM(epoch_s) FROM epochs WHERE epoch <= " + through);
  const double interval_s =
      testing::db_number(rank_db, "SELECT epoch_s FROM epochs WHERE epoch = " + through);
  MESSAGE("reached " << kTarget * 100 << "% in epoch " << epoch << " after " << seconds
                     << " s; training through that epoch " << trained_s << " s, interval "
                     << interval_s << " s");
  CHECK(seconds >= trained_s);
  CHECK(seconds <= trained_s + interval_s);
}

TEST_CASE("small-cnn reaches 85% at 1 and 2 ranks; time to target matches the epoch table") {
  if (!fs::exists(std::string(kFashionMnist) + "/train-images-idx3-ubyte.gz")) {
    SKIP_UNLESS_INSTALLED(kFashionMnist << " is not installed (apt install dataset-fashion-mnist)");
  }
  const std::string dir = testing::fresh_dir("time-to-target");
  const std::string study = dir + "/study.yaml";
  write_study(study);
  const std::string results = dir + "/results";
  const testing::Finished run =
      testing::run_study_locally(study, results, 1100, dir + "/run-output.txt");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  const std::string study_db = results + "/" + kStudy + ".sqlite";
  for (int world_size : {1, 2}) {
    const std::string run_id = testing::db_text(
        study_db, "SELECT run_id FROM runs WHERE world_size = " + std::to_string(world_size));
    const std::string run_dir = results + "/" + kStudy + "/runs/" + run_id;
    check_against_epoch_table(run_dir + "/rank0.sqlite");
    if (world_size == 2) {  // every rank saw the same global validation
      CHECK(testing::db_number(run_dir + "/rank1.sqlite",
                               "SELECT value FROM summary WHERE name = 'time_to_target_epoch'") ==
            testing::db_number(run_dir + "/rank0.sqlite",
                               "SELECT value FROM summary WHERE name = 'time_to_target_epoch'"));
    }
  }

  const nlohmann::json document = testing::json_report(study, results, dir + "/report.json");
  const nlohmann::json* one = testing::point_of(document, 1);
  const nlohmann::json* two = testing::point_of(document, 2);
  REQUIRE(one != nullptr);
  REQUIRE(two != nullptr);
  for (const nlohmann::json* point : {one, two}) {
    const nlohmann::json& target = (*point)["time_to_target"];
    REQUIRE(target.is_object());
    CHECK(target["metric"] == "val_accuracy");
    CHECK(target["value"].get<double>() == doctest::Approx(kTarget));
    CHECK(target["reached_runs"] == 1);
    CHECK(target["time_s"].get<double>() > 0);
    CHECK(target["speedup"].is_number());
    CHECK(target["efficiency"].is_number());
  }
  CHECK((*one)["time_to_target"]["speedup"].get<double>() == doctest::Approx(1.0));
  CHECK((*two)["efficiency"].is_number());  // throughput efficiency, beside it
  const nlohmann::json& check = (*two)["accuracy_vs_baseline"];
  REQUIRE(check.is_object());
  CHECK(check["epoch"] == 2);
  CHECK(check["worse"].is_null());  // one repeat each: no verdict
  MESSAGE("time to target: " << (*one)["time_to_target"]["time_s"] << " s at 1 rank, "
                             << (*two)["time_to_target"]["time_s"] << " s at 2 ranks; speedup "
                             << (*two)["time_to_target"]["speedup"] << ", throughput efficiency "
                             << (*two)["efficiency"]);

  const std::string html =
      testing::html_report(study, results, dir + "/report.html", {"--no-ingest"});
  CHECK(html.find("time to target [s]") != std::string::npos);
  CHECK(html.find("eff to target [%]") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy
