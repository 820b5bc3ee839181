// Pattern extraction from captured rank output (results/output_metrics): occurrences,
// warm-up skipping, reductions over ranks, clear failures, linear-time matching of a
// pattern that backtracking engines take exponential time on, and bytes that are not
// UTF-8.
#include "orchestrator/results/ingest/output_metrics.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "harness/core/run_layout.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

struct OutputDir {
  fs::path path =
      fs::temp_directory_path() / ("scalestudy_output_metrics_" + std::to_string(::getpid()) + "_" +
                                   std::to_string(reinterpret_cast<uintptr_t>(this)));
  OutputDir() { fs::create_directories(path); }
  ~OutputDir() { fs::remove_all(path); }
  void write(int rank, const std::string& text) const {
    std::ofstream(run_layout::rank_log_path(path.string(), rank), std::ios::binary) << text;
  }
};

MetricSpec metric(const std::string& name, const std::string& pattern,
                  MetricReduction reduction = MetricReduction::kRank0,
                  MetricOccurrence occurrence = MetricOccurrence::kLast, int skip_first = 0) {
  MetricSpec spec;
  spec.name = name;
  spec.pattern = pattern;
  spec.reduction = reduction;
  spec.occurrence = occurrence;
  spec.skip_first = skip_first;
  return spec;
}

TEST_CASE("the last match of each rank, reduced over ranks by sum, max, min, mean and rank 0") {
  OutputDir dir;
  dir.write(0, "step 1 | 100 img/s\nstep 2 | 110 img/s\nrank time 2.5 s\n");
  dir.write(1, "step 1 | 90 img/s\nstep 2 | 130 img/s\nrank time 3.5 s\n");
  const std::string throughput = R"(\| ([0-9.]+) img/s)";
  auto metrics =
      extract_output_metrics(dir.path.string(), 2,
                             {metric("sum", throughput, MetricReduction::kSum),
                              metric("max", throughput, MetricReduction::kMax),
                              metric("min", throughput, MetricReduction::kMin),
                              metric("mean", throughput, MetricReduction::kMean),
                              metric("first", throughput, MetricReduction::kRank0),
                              metric("time", R"(rank time ([0-9.]+) s)", MetricReduction::kMax)});
  REQUIRE(metrics);
  REQUIRE(metrics->size() == 6);
  CHECK((*metrics)[0].value == doctest::Approx(240));
  CHECK((*metrics)[1].value == doctest::Approx(130));
  CHECK((*metrics)[2].value == doctest::Approx(110));
  CHECK((*metrics)[3].value == doctest::Approx(120));
  CHECK((*metrics)[4].value == doctest::Approx(110));
  CHECK((*metrics)[4].ranks.size() == 1);  // rank0 reads rank 0 only
  CHECK((*metrics)[5].value == doctest::Approx(3.5));
  REQUIRE((*metrics)[0].ranks.size() == 2);
  CHECK((*metrics)[0].ranks[1].rank == 1);
  CHECK((*metrics)[0].ranks[1].matches == 2);
}

TEST_CASE("occurrence all takes the median of the matches after the warm-up ones") {
  OutputDir dir;
  // The first two epochs are slow warm-up; the median of 10, 12, 11 is 11.
  dir.write(0,
            "epoch 1 time 99 s\nepoch 2 time 50 s\nepoch 3 time 10 s\nnoise\n"
            "epoch 4 time 12 s\nepoch 5 time 11 s\n");
  auto metrics = extract_output_metrics(
      dir.path.string(), 1,
      {metric("epoch", R"(time ([0-9.]+) s)", MetricReduction::kRank0, MetricOccurrence::kAll, 2),
       metric("unskipped", R"(time ([0-9.]+) s)", MetricReduction::kRank0,
              MetricOccurrence::kAll)});
  REQUIRE(metrics);
  CHECK((*metrics)[0].value == doctest::Approx(11));
  CHECK((*metrics)[0].ranks[0].matches == 5);
  CHECK((*metrics)[1].value == doctest::Approx(12));
}

TEST_CASE("a pattern that matches nothing is a failure naming metric, pattern and rank file") {
  OutputDir dir;
  dir.write(0, "Throughput 100 img/s\n");
  dir.write(1, "Traceback (most recent call last):\n");
  auto metrics = extract_output_metrics(
      dir.path.string(), 2, {metric("throughput", R"(Throughput (\d+))", MetricReduction::kSum)});
  REQUIRE_FALSE(metrics);
  const std::string message = metrics.status().message();
  CHECK(message.find("metric 'throughput'") != std::string::npos);
  CHECK(message.find(R"(Throughput (\d+))") != std::string::npos);
  CHECK(message.find("matched nothing") != std::string::npos);
  CHECK(message.find("rank1.log") != std::string::npos);

  SUBCASE("only warm-up matches") {
    auto warmup_only =
        extract_output_metrics(dir.path.string(), 1,
                               {metric("throughput", R"(Throughput (\d+))", MetricReduction::kRank0,
                                       MetricOccurrence::kAll, 1)});
    REQUIRE_FALSE(warmup_only);
    CHECK(warmup_only.status().message().find("all of them warm-up") != std::string::npos);
  }
  SUBCASE("a missing rank file") {
    auto missing = extract_output_metrics(
        dir.path.string(), 3, {metric("throughput", R"(Throughput (\d+))", MetricReduction::kSum)});
    REQUIRE_FALSE(missing);
    CHECK(missing.status().message().find("rank") != std::string::npos);
  }
  SUBCASE("a capture that is not a number") {
    auto word =
        extract_output_metrics(dir.path.string(), 1, {metric("unit", R"(Throughput \d+ (\S+))")});
    REQUIRE_FALSE(word);
    CHECK(word.status().message().find("'img/s', which is not a number") != std::string::npos);
    CHECK(word.status().message().find("rank0.log:1") != std::string::npos);
  }
}

TEST_CASE("a pattern that backtracks exponentially finishes in linear time") {
  // (a+)+b against a run of a's without b takes 2^n steps in a backtracking engine
  // (n = 5000 here: never finishing); RE2 answers in one pass per line.
  OutputDir dir;
  std::string text;
  for (int line = 0; line < 200; ++line) text += std::string(5000, 'a') + "\n";
  text += "aaab 42\n";
  dir.write(0, text);
  auto metrics = extract_output_metrics(dir.path.string(), 1, {metric("n", R"((?:a+)+b (\d+))")});
  REQUIRE(metrics);
  CHECK((*metrics)[0].value == 42);
  CHECK((*metrics)[0].ranks[0].matches == 1);
}

TEST_CASE("output that is not UTF-8 is matched byte for byte") {
  OutputDir dir;
  // Latin-1 "é", a lone continuation byte, an overlong sequence and a NUL on one line.
  const char kMixed[] = "caf\xe9 \x80\xc0\xaf\0 loss 0.25 \xff\n";
  dir.write(0, std::string(kMixed, sizeof kMixed - 1) + "\xb5s per step: 12.5\n");
  auto metrics = extract_output_metrics(
      dir.path.string(), 1,
      {metric("loss", R"(loss ([0-9.]+))"), metric("step", "\xb5s per step: ([0-9.]+)")});
  REQUIRE(metrics);
  CHECK((*metrics)[0].value == doctest::Approx(0.25));
  CHECK((*metrics)[1].value == doctest::Approx(12.5));
}

TEST_CASE("lines longer than the line limit are matched in pieces, in bounded memory") {
  OutputDir dir;
  std::string text(kMaxLineBytes * 2 + 10, 'x');
  text += " value 7\nvalue 8\n";
  dir.write(0, text);
  auto scanned = scan_output_file(run_layout::rank_log_path(dir.path.string(), 0),
                                  {metric("value", R"(value (\d+))")});
  REQUIRE(scanned);
  CHECK(scanned->values[0] == std::vector<double>{7, 8});
}

TEST_CASE("patterns compiled once serve every file scanned with them") {
  OutputDir first, second;
  first.write(0, "throughput 100 img/s\n");
  second.write(0, "throughput 7 img/s\nthroughput 9 img/s\n");
  auto patterns = MetricPatterns::compile({metric("throughput", R"(throughput (\d+) img/s)")});
  REQUIRE(patterns);
  for (const auto& [dir, expected] : {std::pair{&first, 100.0}, std::pair{&second, 9.0}}) {
    auto metrics = extract_output_metrics(dir->path.string(), 1, *patterns);
    REQUIRE(metrics);
    CHECK((*metrics)[0].value == expected);
  }
  auto bad = MetricPatterns::compile({metric("two", R"((a)(b))")});
  REQUIRE_FALSE(bad);
  CHECK(bad.status().message().find("metric 'two'") != std::string::npos);
}

TEST_CASE("a line split between two reads is matched whole, with its line number") {
  OutputDir dir;
  // Filler lines that end three bytes before the first 1 MiB read does, so the next line
  // starts in one read and ends in the next.
  const size_t read_bytes = size_t{1} << 20;
  std::string text;
  int lines = 0;
  while (text.size() + 1024 <= read_bytes - 3) {
    text += std::string(1023, 'x') + "\n";
    ++lines;
  }
  text += std::string(read_bytes - 4 - text.size(), 'y') + "\n";
  ++lines;
  REQUIRE(text.size() == read_bytes - 3);
  text += "value 7\nvalue 8\nvalue nine\n";
  dir.write(0, text);
  const std::string path = run_layout::rank_log_path(dir.path.string(), 0);
  auto scanned = scan_output_file(path, {metric("value", R"(^value (\d+)$)")});
  REQUIRE(scanned);
  CHECK(scanned->values[0] == std::vector<double>{7, 8});
  auto not_a_number = scan_output_file(path, {metric("value", R"(^value (\S+)$)")});
  REQUIRE_FALSE(not_a_number);
  CHECK(not_a_number.status().message().find(":" + std::to_string(lines + 3) + ": metric") !=
        std::string::npos);
}

}  // namespace
}  // namespace scalestudy::results
