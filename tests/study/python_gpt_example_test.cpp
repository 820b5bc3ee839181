// examples/python-gpt end to end (docs/measure-your-own-script.md): its study,
// examples/python-gpt/recorded.yaml, extended here to a tiny model (2 layers, d_model 64,
// 64-byte sequences, 60 steps) and to both parallelisms, run by `scalestudy run` on the local
// executor at 1 and 2 CPU ranks. Every run's database must hold tokens_per_s > 0 equal to
// samples_per_s x seq_len and the FLOPs per sample of PaLM's rule; the 2-rank runs' loss must
// fall, FSDP2 must train as DDP does (same seeds, same batches), and the report must carry
// the runs' throughput and achieved TFLOP/s. The interpreter is the PyTorch wheel's venv
// that scripts/torch-venv.sh makes ($SCALESTUDY_TORCH_VENV, default .deps/torch-venv; the
// test suite installs it first), where FSDP2 exists. The corpus is two of the repository's docs,
// beside a name with '.' and a symlink that the script must leave out, so the fortunes package is
// not needed. About 20 s on 2 cores.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tests/harness/child_process.hpp"
#include "tests/harness/local_study.hpp"
#include "tests/harness/run_database_reader.hpp"
#include "tests/support/skip.hpp"

namespace scalestudy {
namespace {

namespace fs = std::filesystem;

constexpr char kStudy[] = "python-gpt-example-test";
constexpr int kLayers = 2, kDModel = 64, kSeqLen = 64;

std::string source_dir() {
  const char* dir = std::getenv("SCALESTUDY_SOURCE_DIR");
  REQUIRE(dir != nullptr);
  return dir;
}

// Whether `python` runs `code` (exit 0).
bool runs(const std::string& python, const std::string& code, const std::string& dir) {
  if (::access(python.c_str(), X_OK) != 0) return false;
  return testing::run_to_end({python, "-c", code}, {}, dir + "/probe.txt", 120).exit_code == 0;
}

// The venv's Python when it has torch; empty otherwise.
std::string python_with_torch(const std::string& dir) {
  const char* venv = std::getenv("SCALESTUDY_TORCH_VENV");
  fs::path venv_dir = venv != nullptr ? venv : ".deps/torch-venv";
  if (venv_dir.is_relative()) venv_dir = fs::path(source_dir()) / venv_dir;
  const std::string python = (venv_dir / "bin/python").string();
  return runs(python, "import torch", dir) ? python : "";
}

// The corpus folder: two text files, a name with '.' and a symlink (both left out).
// Returns the bytes the script must read as training and as validation text.
std::pair<long, long> write_corpus(const fs::path& corpus) {
  fs::create_directories(corpus);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"alpha", "measure-your-own-script.md"}, {"beta", "run-database.md"}};
  long train = 0, total = 0;
  for (const auto& [name, doc] : files) {
    fs::copy_file(fs::path(source_dir()) / "docs" / doc, corpus / name);
    const auto size = static_cast<long>(fs::file_size(corpus / name));
    train += static_cast<long>(size * 0.9);  // the script's int(len * 0.9)
    total += size;
  }
  fs::copy_file(fs::path(source_dir()) / "README.md", corpus / "alpha.dat");
  fs::create_symlink("alpha", corpus / "gamma");
  return {train, total - train};
}

void write_study(const std::string& path, const std::string& python, const std::string& corpus) {
  std::ofstream(path) << "extends: " << source_dir() << "/examples/python-gpt/recorded.yaml\n"
                      << "study: " << kStudy << "\n"
                      << "workload:\n"
                      << "  binary: " << python << "\n"
                      << "  args: [" << source_dir() << "/examples/python-gpt/train.py, --record]\n"
                      << "  data_root: " << corpus << "\n"
                      << "  n_layer: " << kLayers << "\n"
                      << "  d_model: " << kDModel << "\n"
                      << "  seq_len: " << kSeqLen << "\n"
                      << "  steps: 60\n"
                      << "  eval_interval: 20\n"
                      << "  lr: 0.003\n"
                      << "matrix:\n"
                      << "  parallel: [ddp, fsdp2]\n"
                      << "global_batch: 8\n";
}

double summary(const std::string& rank_db, const std::string& name) {
  return testing::db_number(rank_db, "SELECT value FROM summary WHERE name = '" + name + "'");
}

struct RunFigures {
  double tokens_per_s = 0, first_loss = 0, final_loss = 0, final_val_loss = 0;
};

// Checks one run's rank databases and rank 0's log; returns rank 0's figures.
RunFigures check_run(const std::string& run_dir, int world_size,
                     const std::string& expected_parallel,
                     const std::pair<long, long>& corpus_bytes) {
  INFO(run_dir);
  const std::string log = testing::read_text(run_dir + "/rank0.log");
  INFO(log);
  // Only alpha and beta were read, each split 90/10.
  CHECK(log.find(std::to_string(corpus_bytes.first) + " train, " +
                 std::to_string(corpus_bytes.second) + " val bytes") != std::string::npos);
  for (int rank = 0; rank < world_size; ++rank) {
    const std::string db = run_dir + "/rank" + std::to_string(rank) + ".sqlite";
    CHECK(testing::db_text(db, "SELECT status FROM run") == "completed");
    CHECK(testing::db_text(db, "SELECT value FROM provenance WHERE key = 'parallel'") ==
          expected_parallel);
    const double tokens_per_s = summary(db, "tokens_per_s");
    CHECK(tokens_per_s > 0);
    CHECK(tokens_per_s == doctest::Approx(summary(db, "samples_per_s") * kSeqLen).epsilon(1e-9));
    CHECK(summary(db, "tokens_per_sample") == kSeqLen);
    const double parameters = summary(db, "parameters");
    CHECK(parameters > 0);
    const double per_token = 6 * parameters + 12.0 * kLayers * kDModel * kSeqLen;  // PaLM
    CHECK(summary(db, "train_flops_per_sample") == doctest::Approx(per_token * kSeqLen));
    CHECK(summary(db, "forward_flops") == doctest::Approx(per_token * kSeqLen / 3));
    CHECK(summary(db, "global_batch") == 8);
  }
  const std::string rank0 = run_dir + "/rank0.sqlite";
  RunFigures figures;
  figures.tokens_per_s = summary(rank0, "tokens_per_s");
  figures.first_loss = testing::db_number(rank0, "SELECT loss FROM steps WHERE global_step = 1");
  figures.final_loss =
      testing::db_number(rank0, "SELECT train_loss FROM epochs ORDER BY epoch DESC LIMIT 1");
  figures.final_val_loss = summary(rank0, "final_val_loss");
  return figures;
}

TEST_CASE("the python-gpt example trains at 1 and 2 ranks and records tokens/s and FLOPs") {
  const std::string dir = testing::fresh_dir("python-gpt-example");
  const std::string python = python_with_torch(dir);
  if (python.empty()) {
    SKIP_UNLESS_INSTALLED(
        "no PyTorch venv with torch (bash scripts/torch-venv.sh makes "
        ".deps/torch-venv)");
  }
  const bool fsdp2 = runs(python, "from torch.distributed.fsdp import fully_shard", dir);
  REQUIRE_MESSAGE(fsdp2, python << " has no torch.distributed.fsdp.fully_shard (FSDP2)");
  const std::pair<long, long> corpus_bytes = write_corpus(fs::path(dir) / "corpus");
  const std::string study = dir + "/study.yaml";
  write_study(study, python, dir + "/corpus");
  const std::string results = dir + "/results";
  {
    const testing::Finished run =
        testing::run_study_locally(study, results, 200, dir + "/run-output.txt");
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
  }

  const std::string study_db = results + "/" + kStudy + ".sqlite";
  REQUIRE(testing::db_number(study_db, "SELECT count(*) FROM runs WHERE state = 'COMPLETED'") == 4);
  std::map<std::string, double> final_loss_at_two;  // parallelism -> final train loss
  for (const std::string parallel : {"ddp", "fsdp2"}) {
    for (int world_size : {1, 2}) {
      const std::string run_id = testing::db_text(
          study_db, "SELECT run_id FROM runs WHERE world_size = " + std::to_string(world_size) +
                        " AND json_extract(params_json, '$.parallel') = '" + parallel + "'");
      const std::string expected_parallel = world_size == 1 ? "none" : parallel;
      const RunFigures figures = check_run(results + "/" + kStudy + "/runs/" + run_id, world_size,
                                           expected_parallel, corpus_bytes);
      MESSAGE(parallel << " at " << world_size << " ranks: " << figures.tokens_per_s
                       << " tokens/s, loss " << figures.first_loss << " -> " << figures.final_loss
                       << ", val loss " << figures.final_val_loss);
      if (world_size == 2) {
        INFO(parallel << " at 2 ranks");
        CHECK(figures.first_loss > 5.0);  // about ln 256 at the start
        CHECK(figures.final_loss < figures.first_loss - 1.0);
        CHECK(figures.final_val_loss < std::log(256.0));
        final_loss_at_two[parallel] = figures.final_loss;
      }
    }
  }
  // The same seeds and batches: sharding changes where the numbers live, not what they are.
  CHECK(final_loss_at_two["fsdp2"] == doctest::Approx(final_loss_at_two["ddp"]).epsilon(1e-3));

  const nlohmann::json document = testing::json_report(study, results, dir + "/report.json");
  REQUIRE(document["points"].size() == 4);
  for (const nlohmann::json& point : document["points"]) {
    INFO(point["config_label"] << " at " << point["world_size"] << " ranks");
    CHECK(point["throughput_samples_per_s"]["median"].get<double>() > 0);
    REQUIRE(point["ceilings"].is_object());
    CHECK(point["ceilings"]["achieved_tflops"].get<double>() > 0);
    CHECK(point["phases_pct"].is_object());
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scalestudy
