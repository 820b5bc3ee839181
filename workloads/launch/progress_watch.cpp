#include "workloads/launch/progress_watch.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <regex>

namespace scalestudy::launch {
namespace {

// Enough to follow a run whose step time changes; a median over them stays cheap.
constexpr size_t kKeptIntervals = 256;

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  if (values.size() % 2 == 1) return values[middle];
  const double upper = values[middle];
  return (upper + *std::max_element(values.begin(), values.begin() + middle)) / 2;
}

}  // namespace

std::chrono::milliseconds default_hang_limit(const std::vector<std::vector<double>>& intervals_s) {
  double step_s = 0;
  for (const auto& intervals : intervals_s) step_s = std::max(step_s, median(intervals));
  const auto scaled =
      std::chrono::milliseconds(static_cast<long long>(kHangStepMultiple * step_s * 1000));
  return std::max<std::chrono::milliseconds>(kHangFloor, scaled);
}

ProgressWatch::ProgressWatch(std::vector<std::string> files, std::string dir)
    : files_(std::move(files)), dir_(std::move(dir)) {}

std::vector<std::string> ProgressWatch::watched() const {
  std::vector<std::string> paths = files_;
  if (dir_.empty()) return paths;
  static const std::regex kRankDatabase(R"(rank[0-9]+\.sqlite(-wal)?)");
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    if (std::regex_match(entry.path().filename().string(), kRankDatabase)) {
      paths.push_back(entry.path().string());
    }
  }
  return paths;
}

bool ProgressWatch::look(std::chrono::steady_clock::time_point now) {
  bool changed = false;
  for (const std::string& path : watched()) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) continue;
    const long long mtime_ns =
        static_cast<long long>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
    auto [seen, fresh] = seen_.try_emplace(path);
    Seen& file = seen->second;
    if (!fresh && file.size == info.st_size && file.mtime_ns == mtime_ns) continue;
    file.size = info.st_size;
    file.mtime_ns = mtime_ns;
    if (!looked_) continue;  // the first look: what was there before the ranks started
    changed = true;
    if (file.changed_at) {
      file.intervals_s.push_back(std::chrono::duration<double>(now - *file.changed_at).count());
      if (file.intervals_s.size() > kKeptIntervals) file.intervals_s.pop_front();
    }
    file.changed_at = now;
  }
  looked_ = true;
  return changed;
}

std::chrono::milliseconds ProgressWatch::default_limit() const {
  std::vector<std::vector<double>> intervals;
  for (const auto& [path, file] : seen_) {
    intervals.emplace_back(file.intervals_s.begin(), file.intervals_s.end());
  }
  return default_hang_limit(intervals);
}

}  // namespace scalestudy::launch
