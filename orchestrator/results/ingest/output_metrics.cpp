#include "orchestrator/results/ingest/output_metrics.hpp"

#include <fcntl.h>
#include <re2/re2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "harness/core/run_layout.hpp"
#include "orchestrator/results/analysis/statistics.hpp"
#include "orchestrator/results/ingest/file_metrics.hpp"

namespace scalestudy::results {
namespace {

constexpr size_t kReadChunkBytes = size_t{1} << 20;

// As large as the file (one byte more, to see its end in the same read), at most
// kReadChunkBytes: most logs are a few lines, and a 1 MiB buffer per file was most of an
// ingest's time.
size_t chunk_bytes(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0 || info.st_size < 0) return kReadChunkBytes;
  return std::min(kReadChunkBytes, static_cast<size_t>(info.st_size) + 1);
}

// Feeds a file to `on_line` one line at a time (without the newline; pieces of at most
// kMaxLineBytes for longer lines) with its 1-based line number. A line within one read is
// passed in place; only one that spans reads is copied.
template <typename OnLine>
Status for_each_line(const std::string& path, OnLine&& on_line) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error(path + ": " + std::strerror(errno));
  const size_t chunk_size = chunk_bytes(fd);
  std::unique_ptr<char[]> chunk(new char[chunk_size]);  // not zero-filled: read() fills it
  std::string pending;
  long long line_number = 1;
  Status status;
  while (status) {
    ssize_t got = read(fd, chunk.get(), chunk_size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      status = Status::error(path + ": " + std::strerror(errno));
      break;
    }
    if (got == 0) break;
    const char* cursor = chunk.get();
    const char* end = cursor + got;
    while (cursor < end && status) {
      const char* newline = static_cast<const char*>(std::memchr(cursor, '\n', end - cursor));
      const char* stop = newline ? newline : end;
      const size_t take =
          std::min(static_cast<size_t>(stop - cursor), kMaxLineBytes - pending.size());
      const bool at_newline = newline && cursor + take == newline;
      if (!at_newline && pending.size() + take < kMaxLineBytes) {
        pending.append(cursor, take);
        cursor += take;
        continue;
      }
      if (pending.empty()) {
        status = on_line(std::string_view(cursor, take), line_number);
      } else {
        pending.append(cursor, take);
        status = on_line(std::string_view(pending), line_number);
        pending.clear();
      }
      cursor += take;
      if (at_newline) {
        ++cursor;
        ++line_number;
      }
    }
  }
  if (status && !pending.empty()) status = on_line(std::string_view(pending), line_number);
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

bool reads_pattern(const MetricSpec& spec) {
  return spec.source == MetricSource::kRankLog || spec.source == MetricSource::kText;
}

// The numbers of the specs `take` selects, scanned from one text file in one pass.
template <typename Take>
Result<ScannedOutput> scan_lines(const std::string& path, const MetricPatterns& patterns,
                                 Take&& take) {
  const std::vector<MetricSpec>& specs = patterns.specs();
  ScannedOutput scanned;
  scanned.values.resize(specs.size());
  Status status = for_each_line(path, [&](std::string_view line, long long line_number) {
    const re2::StringPiece text(line.data(), line.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      if (!take(i)) continue;
      re2::StringPiece capture;
      if (!RE2::PartialMatch(text, patterns.pattern(i), &capture)) continue;
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

// The file a file metric reads for `rank`: ${rank} replaced; empty when the file is rank 0's
// alone and `rank` is another.
std::string metric_file_path(const std::string& out_dir, const std::string& file, int rank) {
  const std::string reference = "${rank}";
  const size_t at = file.find(reference);
  if (at == std::string::npos) return rank == 0 ? out_dir + "/" + file : "";
  std::string name = file;
  for (size_t found = at; found != std::string::npos; found = name.find(reference, found)) {
    name.replace(found, reference.size(), std::to_string(rank));
  }
  return out_dir + "/" + name;
}

// The numbers `specs[index]`, a file metric, reads for `rank`.
Result<std::vector<double>> read_file_metric(const MetricPatterns& patterns, size_t index,
                                             const std::string& path) {
  const MetricSpec& spec = patterns.specs()[index];
  if (spec.source != MetricSource::kText) return read_structured_metric(spec, path);
  auto scanned = scan_lines(path, patterns, [index](size_t i) { return i == index; });
  if (!scanned) return scanned.status();
  return std::move(scanned->values[index]);
}

}  // namespace

MetricPatterns::MetricPatterns(MetricPatterns&&) noexcept = default;
MetricPatterns& MetricPatterns::operator=(MetricPatterns&&) noexcept = default;
MetricPatterns::~MetricPatterns() = default;

Result<MetricPatterns> MetricPatterns::compile(const std::vector<MetricSpec>& specs) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  MetricPatterns compiled;
  compiled.specs_ = specs;
  for (const MetricSpec& spec : specs) {
    if (!reads_pattern(spec)) {
      compiled.patterns_.push_back(nullptr);
      continue;
    }
    auto pattern = std::make_unique<RE2>(spec.pattern, options);
    if (!pattern->ok() || pattern->NumberOfCapturingGroups() != 1) {
      return Status::error("metric '" + spec.name + "': pattern '" + spec.pattern +
                           "' needs to compile with exactly one capture group" +
                           (pattern->ok() ? "" : ": " + pattern->error()));
    }
    compiled.patterns_.push_back(std::move(pattern));
  }
  return compiled;
}

Result<ScannedOutput> scan_output_file(const std::string& path, const MetricPatterns& patterns) {
  const std::vector<MetricSpec>& specs = patterns.specs();
  return scan_lines(path, patterns,
                    [&](size_t i) { return specs[i].source == MetricSource::kRankLog; });
}

Result<ScannedOutput> scan_output_file(const std::string& path,
                                       const std::vector<MetricSpec>& specs) {
  auto patterns = MetricPatterns::compile(specs);
  if (!patterns) return patterns.status();
  return scan_output_file(path, *patterns);
}

Result<std::vector<OutputMetric>> extract_output_metrics(const std::string& out_dir, int world_size,
                                                         const MetricPatterns& patterns) {
  const std::vector<MetricSpec>& specs = patterns.specs();
  std::vector<OutputMetric> metrics;
  for (const MetricSpec& spec : specs) metrics.push_back({spec, 0, {}});
  const bool rank0_only = std::all_of(specs.begin(), specs.end(), [](const MetricSpec& spec) {
    return spec.reduction == MetricReduction::kRank0;
  });
  const bool reads_logs = std::any_of(specs.begin(), specs.end(), [](const MetricSpec& spec) {
    return spec.source == MetricSource::kRankLog;
  });
  const int ranks_read = rank0_only ? 1 : std::max(1, world_size);
  for (int rank = 0; rank < ranks_read; ++rank) {
    const std::string log_path = run_layout::rank_log_path(out_dir, rank);
    Result<ScannedOutput> scanned = ScannedOutput{};
    if (reads_logs) scanned = scan_output_file(log_path, patterns);
    if (!scanned) return scanned.status();
    for (size_t i = 0; i < specs.size(); ++i) {
      const MetricSpec& spec = specs[i];
      if (rank > 0 && spec.reduction == MetricReduction::kRank0) continue;
      std::string path = log_path;
      std::vector<double> values;
      if (spec.source == MetricSource::kRankLog) {
        values = std::move(scanned->values[i]);
      } else {
        path = metric_file_path(out_dir, spec.file, rank);
        if (path.empty()) continue;  // the run's one file, read as rank 0's
        auto read = read_file_metric(patterns, i, path);
        if (!read) return read.status().with_context("metric '" + spec.name + "'");
        values = std::move(read).value();
      }
      const std::string where = "metric '" + spec.name + "': " + metric_source_key(spec.source) +
                                " '" + (spec.key.empty() ? spec.pattern : spec.key) + "'";
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

Result<std::vector<OutputMetric>> extract_output_metrics(const std::string& out_dir, int world_size,
                                                         const std::vector<MetricSpec>& specs) {
  auto patterns = MetricPatterns::compile(specs);
  if (!patterns) return patterns.status();
  return extract_output_metrics(out_dir, world_size, *patterns);
}

}  // namespace scalestudy::results
