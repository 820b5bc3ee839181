// Output metrics: the figures a study's `metrics:` section extracts from the captured
// output of each rank (<out_dir>/rank<RANK>.log) with RE2 patterns, for programs that do
// not write a run database. Each rank file is streamed once, line by line, in bounded
// memory (a line longer than kMaxLineBytes is matched in pieces of that size), so a huge
// log costs time, not memory; RE2 keeps each match linear in the line's length. Bytes
// are taken as they are (Latin-1 matching): output that is not UTF-8 matches the same.
// Pure functions over files; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/metric_spec.hpp"

namespace scalestudy::results {

inline constexpr size_t kMaxLineBytes = size_t{1} << 20;

// The numbers each spec's capture group matched in one file, in file order; `values[i]`
// belongs to `specs[i]`. An error when the file cannot be read or a capture is not a
// number.
struct ScannedOutput {
  std::vector<std::vector<double>> values;
};
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
// reduces with rank0). A pattern that matches nothing in a rank it needs, or only warm-up
// matches, is an error naming the metric, the pattern and the file.
Result<std::vector<OutputMetric>> extract_output_metrics(const std::string& out_dir, int world_size,
                                                         const std::vector<MetricSpec>& specs);

}  // namespace scalestudy::results
