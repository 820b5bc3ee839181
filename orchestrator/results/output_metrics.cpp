#include "orchestrator/results/output_metrics.hpp"

#include <fcntl.h>
#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "harness/core/run_layout.hpp"
#include "orchestrator/results/statistics.hpp"

namespace scalestudy::results {
namespace {

constexpr size_t kReadChunkBytes = size_t{1} << 20;

std::vector<std::unique_ptr<RE2>> compile(const std::vector<MetricSpec>& specs, Status& error) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  std::vector<std::unique_ptr<RE2>> patterns;
  for (const MetricSpec& spec : specs) {
    auto pattern = std::make_unique<RE2>(spec.pattern, options);
    if (!pattern->ok() || pattern->NumberOfCapturingGroups() != 1) {
      error = Status::error("metric '" + spec.name + "': pattern '" + spec.pattern +
                            "' needs to compile with exactly one capture group" +
                            (pattern->ok() ? "" : ": " + pattern->error()));
      return {};
    }
    patterns.push_back(std::move(pattern));
  }
  return patterns;
}

// Feeds a file to `on_line` one line at a time (without the newline; pieces of at most
// kMaxLineBytes for longer lines) with its 1-based line number.
template <typename OnLine>
Status for_each_line(const std::string& path, OnLine&& on_line) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error(path + ": " + std::strerror(errno));
  std::string pending;
  pending.reserve(kMaxLineBytes);
  std::vector<char> chunk(kReadChunkBytes);
  long long line_number = 1;
  Status status;
  while (status) {
    ssize_t got = read(fd, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      status = Status::error(path + ": " + std::strerror(errno));
      break;
    }
    if (got == 0) break;
    const char* cursor = chunk.data();
    const char* end = cursor + got;
    while (cursor < end && status) {
      const char* newline = static_cast<const char*>(std::memchr(cursor, '\n', end - cursor));
      const char* stop = newline ? newline : end;
      size_t room = kMaxLineBytes - pending.size();
      size_t take = std::min(static_cast<size_t>(stop - cursor), room);
      pending.append(cursor, take);
      cursor += take;
      if (pending.size() == kMaxLineBytes || (newline && cursor == newline)) {
        status = on_line(pending, line_number);
        pending.clear();
        if (newline && cursor == newline) {
          ++cursor;
          ++line_number;
        }
      }
    }
  }
  if (status && !pending.empty()) status = on_line(pending, line_number);
  close(fd);
  return status;
}

double reduce(MetricReduction reduction, const std::vector<RankMetricValue>& ranks) {
  std::vector<double> values;
  for (const auto& rank : ranks) values.push_back(rank.value);
  switch (reduction) {
    case MetricReduction::kSum: {
      double sum = 0;
      for (double value : values) sum += value;
      return sum;
    }
    case MetricReduction::kMax:
      return *std::max_element(values.begin(), values.end());
    case MetricReduction::kMin:
      return *std::min_element(values.begin(), values.end());
    case MetricReduction::kMean:
      return mean(values);
    case MetricReduction::kRank0:
      return values.front();
  }
  return values.front();
}

}  // namespace

Result<ScannedOutput> scan_output_file(const std::string& path,
                                       const std::vector<MetricSpec>& specs) {
  Status compile_error;
  auto patterns = compile(specs, compile_error);
  if (!compile_error) return compile_error;
  ScannedOutput scanned;
  scanned.values.resize(specs.size());
  Status status = for_each_line(path, [&](const std::string& line, long long line_number) {
    const re2::StringPiece text(line);
    for (size_t i = 0; i < patterns.size(); ++i) {
      re2::StringPiece capture;
      if (!RE2::PartialMatch(text, *patterns[i], &capture)) continue;
      std::string number(capture.data(), capture.size());
      char* end = nullptr;
      double value = std::strtod(number.c_str(), &end);
      if (number.empty() || *end != '\0') {
        return Status::error(path + ":" + std::to_string(line_number) + ": metric '" +
                             specs[i].name + "' captured '" + number.substr(0, 40) +
                             "', which is not a number");
      }
      scanned.values[i].push_back(value);
    }
    return Status::ok();
  });
  if (!status) return status;
  return scanned;
}

Result<std::vector<OutputMetric>> extract_output_metrics(const std::string& out_dir, int world_size,
                                                         const std::vector<MetricSpec>& specs) {
  std::vector<OutputMetric> metrics;
  for (const MetricSpec& spec : specs) metrics.push_back({spec, 0, {}});
  const bool rank0_only = std::all_of(specs.begin(), specs.end(), [](const MetricSpec& spec) {
    return spec.reduction == MetricReduction::kRank0;
  });
  const int ranks_read = rank0_only ? 1 : std::max(1, world_size);
  for (int rank = 0; rank < ranks_read; ++rank) {
    const std::string path = run_layout::rank_log_path(out_dir, rank);
    auto scanned = scan_output_file(path, specs);
    if (!scanned) return scanned.status();
    for (size_t i = 0; i < specs.size(); ++i) {
      const MetricSpec& spec = specs[i];
      if (rank > 0 && spec.reduction == MetricReduction::kRank0) continue;
      const std::vector<double>& values = scanned->values[i];
      const std::string where = "metric '" + spec.name + "': pattern '" + spec.pattern + "'";
      if (values.empty()) return Status::error(where + " matched nothing in " + path);
      RankMetricValue rank_value{rank, values.back(), static_cast<int>(values.size())};
      if (spec.occurrence == MetricOccurrence::kAll) {
        if (static_cast<int>(values.size()) <= spec.skip_first) {
          return Status::error(where + " matched " + std::to_string(values.size()) + " times in " +
                               path + ", all of them warm-up (skip_first " +
                               std::to_string(spec.skip_first) + ")");
        }
        rank_value.value =
            median(std::vector<double>(values.begin() + spec.skip_first, values.end()));
      }
      metrics[i].ranks.push_back(rank_value);
    }
  }
  for (OutputMetric& metric : metrics) metric.value = reduce(metric.spec.reduction, metric.ranks);
  return metrics;
}

}  // namespace scalestudy::results
