// A 2-rank CPU ResNet-50 run on a generated ImageFolder of real JPEGs (TinyImageNet layout,
// 4 classes, 64 x 64) through the real launcher and driver:
//   scalestudy-launch --nproc-per-node 2 -- scalestudy-train --dataset imagefolder ...
// It must complete, write both run databases, and pack the tree once (the ranks share the
// decode through the pack lock; the second rank reads the first one's pack).
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/harness/child_process.hpp"
#include "tests/harness/image_folder_test_tree.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

TEST_CASE("2-rank CPU ResNet-50 on a generated ImageFolder completes and records both ranks") {
  const std::string dir = testing::fresh_dir("imagefolder-train");
  const std::string root = dir + "/tiny";
  testing::write_tiny_imagenet_tree(root, {4, 8, 2, 64});
  const std::string out_dir = dir + "/run";
  const std::vector<std::string> command = {testing::binary("scalestudy-launch"),
                                            "--nproc-per-node",
                                            "2",
                                            "--",
                                            testing::binary("scalestudy-train"),
                                            "--dataset",
                                            "imagefolder",
                                            "--data-root",
                                            root,
                                            "--model",
                                            "resnet50",
                                            "--epochs",
                                            "1",
                                            "--steps-per-epoch",
                                            "2",
                                            "--batch-size",
                                            "4",
                                            "--eval-batch-size",
                                            "8",
                                            "--optimizer",
                                            "sgd",
                                            "--lr",
                                            "0.1",
                                            "--momentum",
                                            "0.9",
                                            "--weight-decay",
                                            "0.0001",
                                            "--schedule",
                                            "step",
                                            "--augment",
                                            "true",
                                            "--measure-warmup-steps",
                                            "1",
                                            "--threads",
                                            "1",
                                            "--seed",
                                            "3",
                                            "--out-dir",
                                            out_dir,
                                            "--run-id",
                                            "imagefolder-smoke"};
  const testing::Finished run = testing::run_to_end(command, {}, dir + "/output.txt", 170);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  for (const char* rank : {"rank0", "rank1"}) {
    const std::string db = out_dir + "/" + rank + ".sqlite";
    REQUIRE(std::filesystem::exists(db));
    CHECK(testing::db_text(db, "SELECT status FROM run") == "completed");
    CHECK(testing::db_number(db, "SELECT world_size FROM run") == 2);
    CHECK(testing::db_number(db, "SELECT COUNT(*) FROM steps") == 2);
    CHECK(testing::db_text(db, "SELECT config_json FROM run").find("\"imagefolder\"") !=
          std::string::npos);
    const double val_acc = testing::db_number(db, "SELECT val_acc FROM epochs WHERE epoch = 1");
    CHECK(val_acc >= 0.0);
    CHECK(val_acc <= 1.0);
  }
  CHECK(std::filesystem::exists(root + "/.scalestudy-pack/train-64.sspack"));
  CHECK(std::filesystem::exists(root + "/.scalestudy-pack/val-64.sspack"));
  CHECK(testing::count_occurrences(run.output, "imagefolder: train: decoded 32 images") == 1);
  CHECK(testing::count_occurrences(run.output, "imagefolder: val: decoded 8 images") == 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy
