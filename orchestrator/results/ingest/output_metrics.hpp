// Output metrics: the figures a study's `metrics:` section extracts from the captured
// output of each rank (<out_dir>/rank<RANK>.log) with RE2 patterns, or from the files a
// program writes in its run folder (file_metrics.hpp for CSV and JSON), for programs that
// do not write a run database. Each rank file is streamed once, line by line, in bounded
// memory (a line longer than kMaxLineBytes is matched in pieces of that size), so a huge
// log costs time, not memory; RE2 keeps each match linear in the line's length. Bytes
// are taken as they are (Latin-1 matching): output that is not UTF-8 matches the same.
// Pure functions over files; thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/metric_spec.hpp"

namespace re2 {
class RE2;
}

namespace scalestudy::results {

inline constexpr size_t kMaxLineBytes = size_t{1} << 20;

// The numbers each spec's capture group matched in one file, in file order; `values[i]`
// belongs to `specs[i]`. An error when the file cannot be read or a capture is not a
// number.
struct ScannedOutput {
  std::vector<std::vector<double>> values;
};

// A study's `metrics:` with their patterns compiled, made once and shared by every file
// scanned with them (compiling per file cost as much as scanning a short log). Immutable;
// thread-safe.
class MetricPatterns {
 public:
  // An error naming the metric whose pattern does not compile with one capture group.
  static Result<MetricPatterns> compile(const std::vector<MetricSpec>& specs);
  MetricPatterns(MetricPatterns&&) noexcept;
  MetricPatterns& operator=(MetricPatterns&&) noexcept;
  ~MetricPatterns();

  const std::vector<MetricSpec>& specs() const { return specs_; }
  const re2::RE2& pattern(size_t index) const { return *patterns_[index]; }

 private:
  MetricPatterns() = default;
  std::vector<MetricSpec> specs_;
  std::vector<std::unique_ptr<re2::RE2>> patterns_;
};

// The overloads taking `specs` compile them for that one call.
Result<ScannedOutput> scan_output_file(const std::string& path, const MetricPatterns& patterns);
Result<ScannedOutput> scan_output_file(const std::string& path,
                                       const std::vector<MetricSpec>& specs);

struct RankMetricValue {
  int rank = 0;
  double value = 0;  // the rank's value after occurrence and warm-up selection
  int matches = 0;   // every match in the rank's output, warm-up included
};

struct OutputMetric {
  MetricSpec spec;
  double value = 0;  // reduced over ranks
  std::vector<RankMetricValue> ranks;
};

// Applies `specs` to the output of ranks 0..world_size-1 (rank 0 only when every spec
// reduces with rank0; a file without ${rank} in its name is rank 0's alone). A pattern that matches
// nothing in a rank it needs, or only warm-up matches, is an error naming the metric, the pattern
// and the file.
Result<std::vector<OutputMetric>> extract_output_metrics(const std::string& out_dir, int world_size,
                                                         const MetricPatterns& patterns);
Result<std::vector<OutputMetric>> extract_output_metrics(const std::string& out_dir, int world_size,
                                                         const std::vector<MetricSpec>& specs);

}  // namespace scalestudy::results
