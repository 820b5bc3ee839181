// Metrics read from the files a program writes in its run folder (results/file_metrics,
// results/output_metrics): a pattern over a text file, a sparse CSV column (Lightning's
// CSVLogger), a JSON-lines field, a JSON path with a negative index (Hugging Face's
// trainer_state.json), each rank's file through ${rank}, and the errors when nothing
// matched or a value is not a number. Plus JSON path parsing.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "orchestrator/results/ingest/output_metrics.hpp"
#include "orchestrator/study/json_path.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

struct RunFolder {
  fs::path path =
      fs::temp_directory_path() / ("scalestudy_file_metrics_" + std::to_string(::getpid()) + "_" +
                                   std::to_string(reinterpret_cast<uintptr_t>(this)));
  RunFolder() { fs::create_directories(path / "logs"); }
  ~RunFolder() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
  }
};

MetricSpec file_metric(MetricSource source, const std::string& file, const std::string& key,
                       MetricOccurrence occurrence = MetricOccurrence::kLast, int skip_first = 0) {
  MetricSpec spec;
  spec.name = "m";
  spec.source = source;
  spec.file = file;
  (source == MetricSource::kText ? spec.pattern : spec.key) = key;
  spec.occurrence = occurrence;
  spec.skip_first = skip_first;
  return spec;
}

double value_of(const RunFolder& folder, const MetricSpec& spec, int world_size = 1) {
  auto metrics = extract_output_metrics(folder.path.string(), world_size, {spec});
  INFO(metrics.status().message());
  REQUIRE(metrics);
  return metrics->front().value;
}

TEST_CASE("a sparse CSV column: empty cells skipped, quoted cells read, warm-up skipped") {
  RunFolder folder;
  folder.write("logs/metrics.csv",
               "step,train_loss,\"step time, s\"\n0,2.0,\n0,,0.5\n1,1.0,\n1,,0.1\n2,,0.3\n");
  CHECK(value_of(folder, file_metric(MetricSource::kCsv, "logs/metrics.csv", "step time, s",
                                     MetricOccurrence::kAll, 1)) == doctest::Approx(0.2));
  CHECK(value_of(folder, file_metric(MetricSource::kCsv, "logs/metrics.csv", "train_loss")) ==
        doctest::Approx(1.0));
  auto missing = extract_output_metrics(
      folder.path.string(), 1, {file_metric(MetricSource::kCsv, "logs/metrics.csv", "loss")});
  REQUIRE_FALSE(missing);
  CHECK(missing.status().message().find("no column 'loss'") != std::string::npos);
}

TEST_CASE("a JSON-lines field by path; lines without it skipped; not a number is an error") {
  RunFolder folder;
  folder.write("metrics.jsonl",
               "{\"step\": 0, \"train\": {\"samples_per_s\": 100}}\n{\"eval\": 1}\n\n"
               "{\"step\": 1, \"train\": {\"samples_per_s\": 300}}\n");
  CHECK(value_of(folder, file_metric(MetricSource::kJsonLines, "metrics.jsonl",
                                     "train.samples_per_s", MetricOccurrence::kAll)) ==
        doctest::Approx(200));
  folder.write("bad.jsonl", "{\"train\": {\"samples_per_s\": \"fast\"}}\n");
  auto bad = extract_output_metrics(
      folder.path.string(), 1,
      {file_metric(MetricSource::kJsonLines, "bad.jsonl", "train.samples_per_s")});
  REQUIRE_FALSE(bad);
  CHECK(bad.status().message().find("bad.jsonl:1: field 'train.samples_per_s'") !=
        std::string::npos);
}

TEST_CASE("a JSON path with a negative index; a path that finds nothing matched nothing") {
  RunFolder folder;
  folder.write("trainer_state.json",
               R"({"log_history": [{"loss": 2.0}, {"train_samples_per_second": 41.5}]})");
  CHECK(value_of(folder, file_metric(MetricSource::kJson, "trainer_state.json",
                                     "log_history[-1].train_samples_per_second")) ==
        doctest::Approx(41.5));
  auto nothing = extract_output_metrics(
      folder.path.string(), 1,
      {file_metric(MetricSource::kJson, "trainer_state.json", "log_history[0].epoch")});
  REQUIRE_FALSE(nothing);
  CHECK(nothing.status().message().find("matched nothing in") != std::string::npos);
  auto absent = extract_output_metrics(folder.path.string(), 1,
                                       {file_metric(MetricSource::kJson, "none.json", "a")});
  REQUIRE_FALSE(absent);
  CHECK(absent.status().message().find("none.json: cannot be read") != std::string::npos);
}

TEST_CASE("a pattern over each rank's own text file, reduced over ranks") {
  RunFolder folder;
  folder.write("train-0.log", "tokens/s 100\ntokens/s 120\n");
  folder.write("train-1.log", "tokens/s 80\ntokens/s 90\n");
  MetricSpec spec = file_metric(MetricSource::kText, "train-${rank}.log", R"(tokens/s ([0-9]+))");
  spec.reduction = MetricReduction::kSum;
  CHECK(value_of(folder, spec, 2) == doctest::Approx(210));
}

TEST_CASE("JSON paths: keys, indices, negative indices, and where a malformed one is wrong") {
  auto path = parse_json_path("log_history[-1].train_samples_per_second");
  REQUIRE(path);
  REQUIRE(path->size() == 3);
  CHECK((*path)[0].key == "log_history");
  CHECK((*path)[1].index == -1);
  CHECK((*path)[2].key == "train_samples_per_second");
  CHECK(parse_json_path("[0][1].a"));
  for (const char* bad : {"", "a..b", "a[", "a[x]", "a.", "a]b", "a[0]b"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_json_path(bad));
  }
}

}  // namespace
}  // namespace scalestudy::results
