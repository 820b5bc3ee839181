// A 1 GB captured output is streamed, never loaded whole: the extraction finds the metric
// lines at its start and end while this process's peak resident memory grows by far less
// than the file. The file is sparse (the hole reads as NUL bytes without touching the
// disk), so the test costs a few seconds of reading, not a gigabyte of writing.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "harness/core/run_layout.hpp"
#include "orchestrator/results/ingest/output_metrics.hpp"

namespace scalestudy::results {
namespace {

namespace fs = std::filesystem;

constexpr long long kFileBytes = 1LL << 30;

long long peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<long long>(usage.ru_maxrss) * 1024;
}

void write_at(int fd, long long offset, const std::string& text) {
  REQUIRE(pwrite(fd, text.data(), text.size(), offset) == static_cast<ssize_t>(text.size()));
}

TEST_CASE("a 1 GB rank output is streamed in bounded memory") {
  const fs::path dir =
      fs::temp_directory_path() / ("scalestudy_large_output_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = run_layout::rank_log_path(dir.string(), 0);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  write_at(fd, 0, "Throughput 100 img/s\n");
  for (long long offset = 256LL << 20; offset < kFileBytes; offset += 256LL << 20) {
    write_at(fd, offset, "\nThroughput 200 img/s\n");  // in the middle of NUL "lines"
  }
  const std::string tail = "\nThroughput 300 img/s\n";
  write_at(fd, kFileBytes - static_cast<long long>(tail.size()), tail);
  close(fd);
  REQUIRE(fs::file_size(path) == static_cast<uintmax_t>(kFileBytes));

  MetricSpec throughput;
  throughput.name = "throughput";
  throughput.pattern = "Throughput ([0-9]+) img/s";
  throughput.occurrence = MetricOccurrence::kAll;
  throughput.skip_first = 1;
  const long long peak_before = peak_rss_bytes();
  auto metrics = extract_output_metrics(dir.string(), 1, {throughput});
  const long long growth = peak_rss_bytes() - peak_before;
  fs::remove_all(dir);

  REQUIRE(metrics);
  CHECK((*metrics)[0].ranks[0].matches == 5);
  CHECK((*metrics)[0].value == 200);  // median of 200, 200, 200, 300 after the warm-up
  CHECK(growth < 64LL << 20);
}

}  // namespace
}  // namespace scalestudy::results
