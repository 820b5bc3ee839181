// scalestudy-ddpm end to end on real Fashion-MNIST on CPU (issue 9's acceptance), through
// the real binaries:
//   - one rank, small preset (28 x 28) with a narrow UNet: the denoising loss the run
//     database records falls from the first steps to the last, per epoch, and on the
//     held-out split;
//   - one rank stopped at step 4 (exit 75) and run again: it resumes with its per-rank noise
//     generator, every step's loss and the final validation loss those of an unbroken run;
//   - two ranks through scalestudy-launch (gloo): both records completed, the validation
//     loss global (equal on both ranks), the weights saved to --checkpoint;
//   - --sample 16 from that checkpoint: a PNG grid of 4 x 4 generated 28 x 28 images;
//   - a weak-scaling study of it (1 and 2 CPU ranks) through `scalestudy run` with the
//     local executor: submitted, completed, ingested and reported like scalestudy-train.
#include <doctest/doctest.h>
#include <png.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/harness/child_process.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy {
namespace {

constexpr char kFashionMnist[] = "/usr/share/datasets/fashion-mnist";

bool have_fashion_mnist() {
  if (std::filesystem::exists(std::string(kFashionMnist) + "/train-images-idx3-ubyte.gz")) {
    return true;
  }
  NOTE_SKIP_UNLESS_INSTALLED(kFashionMnist
                             << " is not installed (apt install dataset-fashion-mnist)");
  return false;
}

// A narrow UNet (8 channels, one block per level) at the small preset's 28 x 28: a few
// seconds a step on two busy cores.
std::vector<std::string> ddpm_command(const std::string& out_dir,
                                      const std::vector<std::string>& extra) {
  std::vector<std::string> command = {testing::binary("scalestudy-ddpm"),
                                      "--out-dir",
                                      out_dir,
                                      "--preset",
                                      "small",
                                      "--dataset",
                                      "fashion-mnist",
                                      "--base-channels",
                                      "8",
                                      "--res-blocks",
                                      "1",
                                      "--val-samples",
                                      "128",
                                      "--eval-batch-size",
                                      "128",
                                      "--lr",
                                      "0.002",
                                      "--measure-warmup-steps",
                                      "2",
                                      "--seed",
                                      "1"};
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

double mean_loss(const std::string& db, const std::string& where) {
  return testing::db_number(db, "SELECT AVG(loss) FROM steps WHERE " + where);
}

}  // namespace

TEST_CASE("DDPM on Fashion-MNIST (CPU, one rank): the denoising loss decreases") {
  if (!have_fashion_mnist()) return;
  const std::string dir = testing::fresh_dir("ddpm-train");
  const std::string out_dir = dir + "/run";
  auto run =
      testing::run_to_end(ddpm_command(out_dir, {"--batch-size", "8", "--epochs", "2",
                                                 "--steps-per-epoch", "15", "--threads", "2"}),
                          {}, dir + "/output.txt", 600);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string db = out_dir + "/rank0.sqlite";
  CHECK(testing::db_text(db, "SELECT workload FROM run") == "ddpm");
  CHECK(testing::db_text(db, "SELECT status FROM run") == "completed");
  REQUIRE(testing::db_number(db, "SELECT COUNT(*) FROM steps") == 30);
  CHECK(testing::db_number(db, "SELECT MIN(samples) FROM steps") == 8);

  const double first = mean_loss(db, "global_step < 5");
  const double last = mean_loss(db, "global_step >= 25");
  MESSAGE("denoising loss: first 5 steps " << first << ", last 5 steps " << last);
  CHECK(last < 0.6 * first);
  const double train1 = testing::db_number(db, "SELECT train_loss FROM epochs WHERE epoch = 1");
  const double train2 = testing::db_number(db, "SELECT train_loss FROM epochs WHERE epoch = 2");
  const double val1 = testing::db_number(db, "SELECT val_loss FROM epochs WHERE epoch = 1");
  const double val2 = testing::db_number(db, "SELECT val_loss FROM epochs WHERE epoch = 2");
  MESSAGE("epoch train loss " << train1 << " -> " << train2 << ", val loss " << val1 << " -> "
                              << val2);
  CHECK(train2 < train1);
  CHECK(val2 < val1);
  CHECK(testing::db_text(db, "SELECT COALESCE(val_acc, 'null') FROM epochs WHERE epoch = 2") ==
        "null");

  const double samples_per_s =
      testing::db_number(db, "SELECT value FROM summary WHERE name = 'samples_per_s'");
  MESSAGE("throughput " << samples_per_s << " samples/s (1 rank, 2 threads)");
  CHECK(samples_per_s > 0);
  CHECK(testing::db_number(db, "SELECT value FROM summary WHERE name = 'forward_flops'") > 0);
  CHECK(testing::db_text(db, "SELECT config_json FROM run").find("\"preset\": \"small\"") !=
        std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("DDPM stopped mid-run resumes with its noise generator: the same losses step by step") {
  if (!have_fashion_mnist()) return;
  const std::string dir = testing::fresh_dir("ddpm-resume");
  const std::vector<std::string> flags = {"--batch-size",      "8", "--epochs",        "2",
                                          "--steps-per-epoch", "3", "--train-samples", "256",
                                          "--threads",         "1"};
  auto whole =
      testing::run_to_end(ddpm_command(dir + "/whole", flags), {}, dir + "/whole.txt", 300);
  REQUIRE(whole.exit_code == 0);
  std::vector<std::string> stopped_flags = flags;
  stopped_flags.insert(stopped_flags.end(), {"--checkpoint-stop-at-step", "4"});
  const std::vector<std::string> stopped = ddpm_command(dir + "/cut", stopped_flags);
  auto first = testing::run_to_end(stopped, {}, dir + "/first.txt", 300);
  INFO(first.output);
  REQUIRE(first.exit_code == 75);
  auto second = testing::run_to_end(stopped, {}, dir + "/second.txt", 300);
  INFO(second.output);
  REQUIRE(second.exit_code == 0);
  const std::string losses = "SELECT group_concat(printf('%.17g', loss)) FROM steps";
  CHECK(testing::db_text(dir + "/cut/rank0.sqlite", losses) ==
        testing::db_text(dir + "/whole/rank0.sqlite", losses));
  const std::string val_loss = "SELECT value FROM summary WHERE name = 'final_val_loss'";
  CHECK(testing::db_number(dir + "/cut/rank0.sqlite", val_loss) ==
        testing::db_number(dir + "/whole/rank0.sqlite", val_loss));
  std::filesystem::remove_all(dir);
}

TEST_CASE("DDPM with 2 ranks via scalestudy-launch completes, then --sample 16 writes a PNG") {
  if (!have_fashion_mnist()) return;
  const std::string dir = testing::fresh_dir("ddpm-launch");
  const std::string out_dir = dir + "/run";
  const std::string checkpoint = dir + "/unet.pt";
  // 20 diffusion steps keep the sampling below short; the linear schedule scales to them.
  std::vector<std::string> command = {testing::binary("scalestudy-launch"), "--nproc-per-node", "2",
                                      "--"};
  for (const std::string& part :
       ddpm_command(out_dir, {"--timesteps", "20", "--batch-size", "8", "--epochs", "1",
                              "--steps-per-epoch", "4", "--threads", "1", "--checkpoint",
                              checkpoint, "--run-id", "ddpm-two-ranks"})) {
    command.push_back(part);
  }
  auto run = testing::run_to_end(command, {}, dir + "/output.txt", 300);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  for (const char* rank : {"rank0", "rank1"}) {
    const std::string db = out_dir + "/" + rank + ".sqlite";
    CAPTURE(db);
    REQUIRE(std::filesystem::exists(db));
    CHECK(testing::db_text(db, "SELECT status FROM run") == "completed");
    CHECK(testing::db_number(db, "SELECT world_size FROM run") == 2);
    CHECK(testing::db_text(db, "SELECT backend FROM run") == "gloo");
    CHECK(testing::db_number(db, "SELECT COUNT(*) FROM steps") == 4);
    CHECK(testing::db_number(db, "SELECT samples_per_s FROM epochs WHERE epoch = 1") > 0);
  }
  // Validation is reduced over both ranks' shards: one global value.
  CHECK(testing::db_number(out_dir + "/rank0.sqlite", "SELECT val_loss FROM epochs") ==
        testing::db_number(out_dir + "/rank1.sqlite", "SELECT val_loss FROM epochs"));
  REQUIRE(std::filesystem::exists(checkpoint));

  const std::string png = dir + "/samples.png";
  auto sample = testing::run_to_end(
      ddpm_command(dir + "/sample", {"--timesteps", "20", "--checkpoint", checkpoint, "--sample",
                                     "16", "--sample-png", png, "--threads", "2"}),
      {}, dir + "/sample-output.txt", 300);
  INFO(sample.output);
  REQUIRE(sample.exit_code == 0);
  CHECK(sample.output.find("Sampled 16 images (20 steps)") != std::string::npos);
  REQUIRE(std::filesystem::exists(png));
  const std::string bytes = testing::read_text(png);
  REQUIRE(bytes.size() > 33);
  CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(bytes.substr(12, 4) == "IHDR");
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_file(&image, png.c_str()));
  // 4 x 4 tiles of 28 px with 2 px of padding around each.
  CHECK(image.width == 4 * (28 + 2) + 2);
  CHECK(image.height == 4 * (28 + 2) + 2);
  image.format = PNG_FORMAT_GRAY;
  std::vector<uint8_t> pixels(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr));
  // A generated tile is an image, not a constant: the first tile's pixels vary.
  double sum = 0, sum_of_squares = 0;
  for (uint32_t y = 2; y < 2 + 28; ++y) {
    for (uint32_t x = 2; x < 2 + 28; ++x) {
      const double value = pixels[y * image.width + x];
      sum += value;
      sum_of_squares += value * value;
    }
  }
  const double mean = sum / (28 * 28);
  CHECK(std::sqrt(sum_of_squares / (28 * 28) - mean * mean) > 5);
  CHECK(testing::db_number(dir + "/sample/rank0.sqlite",
                           "SELECT value FROM summary WHERE name = 'sampled_images'") == 16);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a DDPM study runs under the local executor: ingested and reported") {
  if (!have_fashion_mnist()) return;
  const std::string dir = testing::fresh_dir("ddpm-study");
  const std::string study = dir + "/ddpm-cpu.yaml";
  std::ofstream(study) << R"(study: ddpm-cpu
kind: weak
workload:
  binary: scalestudy-ddpm
  preset: small
  dataset: fashion-mnist
  data_root: /usr/share/datasets/fashion-mnist
  base_channels: 8
  res_blocks: 1
  val_samples: 64
  eval_batch_size: 64
  epochs: 1
  steps_per_epoch: 4
  measure_warmup_steps: 1
  lr: 0.002
  seed: 1
scale: [1, 2]
per_gpu_batch: 8
repeats: 1
slurm:
  ranks_per_node: 2
  cpus_per_task: 1
  time: "10"
)";
  const std::string results = dir + "/results";
  auto run = testing::run_to_end({testing::binary("scalestudy"), "run", study, "--scheduler",
                                  "local", "--results-dir", results},
                                 {}, dir + "/output.txt", 300);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("Weak scaling: ddpm-cpu") != std::string::npos);
  const std::string db = results + "/ddpm-cpu.sqlite";
  CHECK(testing::db_number(db, "SELECT COUNT(*) FROM runs WHERE state = 'COMPLETED'") == 2);
  // Three rank records (1 + 2) ingested, each a completed ddpm run with a throughput.
  CHECK(testing::db_number(db,
                           "SELECT COUNT(*) FROM m_run WHERE workload = 'ddpm' AND "
                           "status = 'completed'") == 3);
  CHECK(testing::db_number(db, "SELECT MIN(value) FROM m_summary WHERE name = 'samples_per_s'") >
        0);
  std::filesystem::remove_all(dir);
}

}  // namespace scalestudy
