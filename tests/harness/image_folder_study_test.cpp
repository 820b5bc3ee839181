// A strong-scaling study of ResNet-50 on a generated ImageFolder (real JPEGs, TinyImageNet
// layout, 4 classes) at 1 and 2 CPU ranks, end to end through the CLI and the local
// executor: `scalestudy run STUDY --scheduler local`, then `scalestudy report --format json`.
// Both runs must complete and record their ranks, the study's image_size and pack_dir must
// reach the trainer (the pack is <pack_dir>/<split>-32.sspack), the tree must be decoded
// once for the whole study (the later run reads the earlier one's pack), and the report
// must show the 2-rank point with a throughput and a validation accuracy.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/harness/child_process.hpp"
#include "tests/harness/image_folder_test_tree.hpp"
#include "tests/harness/local_study.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

constexpr char kStudy[] = "imagefolder-resnet50";

void write_study(const std::string& path, const std::string& data_root,
                 const std::string& pack_dir) {
  std::ofstream(path) << "study: " << kStudy << R"(
kind: strong
workload:
  model: resnet50
  dataset: imagefolder
  data_root: )" << data_root
                      << R"(
  pack_dir: )" << pack_dir
                      << R"(
  image_size: 32
  train_samples: 32
  epochs: 1
  steps_per_epoch: 3
  measure_warmup_steps: 1
  eval_batch_size: 6
  optimizer: sgd
  lr: 0.01
  momentum: 0.9
  weight_decay: 0.0001
  schedule: step
  step_size: 30
  gamma: 0.1
  augment: true
  log_interval: 0
  seed: 3
scale: [1, 2]
global_batch: 8
slurm: {ranks_per_node: 2, cpus_per_task: 1}
)";
}

// The output of every run of the study: its launcher's and ranks' logs.
std::string all_run_logs(const std::string& runs_dir) {
  std::string logs;
  for (const auto& run : fs::directory_iterator(runs_dir)) {
    for (const auto& file : fs::directory_iterator(run.path())) {
      if (file.path().extension() == ".log") logs += testing::read_text(file.path().string());
    }
  }
  return logs;
}

TEST_CASE("a 1- and 2-rank ResNet-50 ImageFolder study runs locally, packs once, reports") {
  const std::string dir = testing::fresh_dir("imagefolder-study");
  const std::string root = dir + "/tiny";
  testing::write_tiny_imagenet_tree(root, {4, 12, 3, 64});
  const std::string pack_dir = dir + "/packs";
  const std::string study = dir + "/study.yaml";
  write_study(study, root, pack_dir);
  const std::string results = dir + "/results";

  const testing::Finished run =
      testing::run_study_locally(study, results, 260, dir + "/run-output.txt");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  const std::string study_db = results + "/" + kStudy + ".sqlite";
  CHECK(testing::db_number(study_db, "SELECT COUNT(*) FROM runs") == 2);
  CHECK(testing::db_number(study_db, "SELECT COUNT(*) FROM runs WHERE state = 'COMPLETED'") == 2);
  const std::string two_rank_run =
      testing::db_text(study_db, "SELECT run_id FROM runs WHERE world_size = 2");
  const std::string run_dir = results + "/" + kStudy + "/runs/" + two_rank_run;
  for (const char* rank : {"rank0", "rank1"}) {
    const std::string rank_db = run_dir + "/" + rank + ".sqlite";
    REQUIRE(fs::exists(rank_db));
    CHECK(testing::db_text(rank_db, "SELECT status FROM run") == "completed");
    CHECK(testing::db_number(rank_db, "SELECT COUNT(*) FROM steps") == 3);
  }

  CHECK(fs::exists(pack_dir + "/train-32.sspack"));
  CHECK(fs::exists(pack_dir + "/val-32.sspack"));
  CHECK_FALSE(fs::exists(root + "/.scalestudy-pack"));  // the default cache folder
  const std::string logs = all_run_logs(results + "/" + kStudy + "/runs");
  INFO(logs);
  CHECK(testing::count_occurrences(logs, "imagefolder: train: decoded 48 images") == 1);
  CHECK(testing::count_occurrences(logs, "imagefolder: val: decoded 12 images") == 1);

  const nlohmann::json document = testing::json_report(study, results, dir + "/report.json");
  const nlohmann::json* one_rank = testing::point_of(document, 1);
  const nlohmann::json* two_ranks = testing::point_of(document, 2);
  REQUIRE(one_rank != nullptr);
  REQUIRE(two_ranks != nullptr);
  CHECK((*two_ranks)["runs"]["measured"] == 1);
  CHECK((*two_ranks)["per_gpu_batch"] == 4);
  CHECK((*two_ranks)["throughput_samples_per_s"]["median"].get<double>() > 0.0);
  const nlohmann::json& val_acc = (*two_ranks)["final_val_acc"];
  REQUIRE(val_acc.is_number());
  CHECK(val_acc.get<double>() >= 0.0);
  CHECK(val_acc.get<double>() <= 1.0);
  CHECK((*two_ranks)["speedup"].is_number());
  MESSAGE("throughput: " << (*one_rank)["throughput_samples_per_s"]["median"]
                         << " img/s at 1 rank, "
                         << (*two_ranks)["throughput_samples_per_s"]["median"]
                         << " img/s at 2 ranks; speedup " << (*two_ranks)["speedup"]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy
