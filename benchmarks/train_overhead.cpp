// Side-by-side costs of the training driver on CPU, measured with scalestudy-train itself:
//   (a) step time with --instrument true vs false (per-phase timing + NVTX ranges);
//       goal: <= 2% overhead.
//   (b) exposed communication (waiting for all-reduces after backward) with bucketed
//       overlap vs one all-reduce after backward, 2 ranks over gloo.
// Runs alternate between the variants, and medians over repeats damp the noise of a shared
// machine. Prints the numbers and ratios; asserts only that every run completed.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/core/run_layout.hpp"
#include "harness/core/sqlite.hpp"
#include "tests/harness/child_process.hpp"

namespace {

using scalestudy::testing::binary;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

double query(const std::string& db_path, const std::string& sql) {
  auto db = scalestudy::sqlite::Database::open(db_path, scalestudy::sqlite::OpenMode::kReadOnly);
  if (!db) return -1;
  auto value = db->query_value(sql);
  if (!value || !*value) return -1;
  if (auto* number = std::get_if<double>(&**value)) return *number;
  if (auto* integer = std::get_if<int64_t>(&**value)) return static_cast<double>(*integer);
  return -1;
}

// Runs one configuration; false (with the output printed) when it did not complete.
bool run(std::vector<std::string> command, const std::string& out_dir) {
  auto finished = scalestudy::testing::run_to_end(command, {}, out_dir + ".txt", 300);
  if (finished.exit_code != 0) std::printf("run failed:\n%s\n", finished.output.c_str());
  return finished.exit_code == 0;
}

std::vector<std::string> train(const std::string& out_dir, std::vector<std::string> extra) {
  std::vector<std::string> command = {binary("scalestudy-train"),
                                      "--out-dir",
                                      out_dir,
                                      "--model",
                                      "small-cnn",
                                      "--dataset",
                                      "synthetic",
                                      "--epochs",
                                      "1",
                                      "--val-samples",
                                      "64",
                                      "--measure-warmup-steps",
                                      "10",
                                      "--telemetry-interval-ms",
                                      "0"};
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

}  // namespace

int main() {
  std::string dir = scalestudy::testing::fresh_dir("train-overhead");
  const int repeats = 3;
  bool ok = true;

  std::vector<double> on_ms, off_ms;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (const char* instrument : {"true", "false"}) {
      std::string out = dir + "/instrument-" + instrument + "-" + std::to_string(repeat);
      ok &= run(train(out, {"--instrument", instrument, "--batch-size", "32", "--threads", "2",
                            "--steps-per-epoch", "50"}),
                out);
      double step_ms =
          query(out + "/rank0.sqlite", "SELECT value FROM summary WHERE name = 'step_ms_median'");
      (std::string(instrument) == "true" ? on_ms : off_ms).push_back(step_ms);
    }
  }
  double on = median(on_ms), off = median(off_ms);
  std::printf(
      "(a) instrumentation, 1 rank, small-cnn, synthetic 3x32x32, batch 32, 2 threads, "
      "%d x 40 measured steps\n",
      repeats);
  std::printf("    median step time: instrument on %.3f ms, off %.3f ms -> overhead %+.2f%%\n", on,
              off, (on - off) / off * 100);

  const std::string exposed_sql = "SELECT avg(comm_exposed_ms) FROM steps WHERE warmup = 0";
  const std::string backward_sql = "SELECT avg(backward_ms) FROM steps WHERE warmup = 0";
  const std::string step_sql = "SELECT avg(step_ms) FROM steps WHERE warmup = 0";
  struct Variant {
    const char* label;
    const char* overlap;
    std::vector<double> exposed, backward, step;
  };
  std::vector<Variant> variants = {{"bucketed overlap (0.25 MB buckets)", "true", {}, {}, {}},
                                   {"one all-reduce after backward", "false", {}, {}, {}}};
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (Variant& variant : variants) {
      std::string out = dir + "/overlap-" + variant.overlap + "-" + std::to_string(repeat);
      std::vector<std::string> command = {binary("scalestudy-launch"), "--nproc-per-node", "2",
                                          "--"};
      for (const std::string& flag :
           train(out, {"--overlap", variant.overlap, "--bucket-cap-mb", "0.25", "--batch-size",
                       "32", "--threads", "1", "--steps-per-epoch", "40"})) {
        command.push_back(flag);
      }
      ok &= run(command, out);
      for (int rank = 0; rank < 2; ++rank) {
        const std::string db = scalestudy::run_layout::rank_database_path(out, rank);
        variant.exposed.push_back(query(db, exposed_sql));
        variant.backward.push_back(query(db, backward_sql));
        variant.step.push_back(query(db, step_sql));
      }
    }
  }
  std::printf(
      "(b) exposed communication, 2 ranks (gloo, 1 thread each), small-cnn 1.2 MB of "
      "gradients, batch 32 per rank, %d x 30 measured steps per rank\n",
      repeats);
  for (const Variant& variant : variants) {
    std::printf("    %-36s comm_exposed %.3f ms/step | backward %.2f ms | step %.2f ms\n",
                variant.label, median(variant.exposed), median(variant.backward),
                median(variant.step));
  }
  std::printf("    ratio exposed(overlap) / exposed(one all-reduce) = %.2f\n",
              median(variants[0].exposed) / median(variants[1].exposed));
  return ok ? 0 : 1;
}
