// What the hang watchdog (child_processes.hpp) reads as progress, and how long it waits
// without any: progress is a change (size or modification time) of any rank's log or rank
// database (rank<r>.sqlite and its -wal, new step rows of scalestudy's workloads) in the run
// folder. A fixed limit (--hang-after-s S) or, by default, the larger of 10 minutes and 20
// times the run's median step time as seen so far: the median interval between one file's
// changes (per file, since ranks writing the same step interleave), the largest over files.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace scalestudy::launch {

// The default limit's floor and its multiple of the median step time (docs/failures.md).
inline constexpr std::chrono::seconds kHangFloor{600};
inline constexpr double kHangStepMultiple = 20;

// max(kHangFloor, kHangStepMultiple x the largest of the sources' median intervals, in
// seconds); sources without intervals count nothing.
std::chrono::milliseconds default_hang_limit(const std::vector<std::vector<double>>& intervals_s);

class ProgressWatch {
 public:
  // `files`: the rank logs to watch; `dir`: where rank databases appear (may be empty).
  ProgressWatch(std::vector<std::string> files, std::string dir);

  // Looks at the files; true when any changed (or appeared) since the last look. The first
  // look only notes what is there (a log appended to by an earlier attempt).
  bool look(std::chrono::steady_clock::time_point now);
  // default_hang_limit over the intervals seen so far.
  std::chrono::milliseconds default_limit() const;

 private:
  struct Seen {
    long long size = -1;
    long long mtime_ns = -1;
    std::optional<std::chrono::steady_clock::time_point> changed_at;  // since the first look
    std::deque<double> intervals_s;  // the latest, at most kKeptIntervals
  };
  std::vector<std::string> watched() const;

  std::vector<std::string> files_;
  std::string dir_;
  std::map<std::string, Seen> seen_;
  bool looked_ = false;
};

}  // namespace scalestudy::launch
