// Runs of one study that ran at the same time on the same host measure each other, not
// the hardware. From each run's recorded hosts and start/finish times (m_run), finds every
// pair of runs whose measured windows overlapped on a host they shared. Functions over
// values and a Database used by one thread.
#pragma once

#include <string>
#include <vector>

#include "harness/core/sqlite.hpp"
#include "harness/core/status.hpp"

namespace scalestudy::results {

// When one run ran on one host: the earliest start and latest finish of its ranks there.
struct RunWindow {
  std::string run_id;
  std::string host;
  double start_s = 0, end_s = 0;  // seconds since the Unix epoch
};

struct RunOverlap {
  std::string run_a, run_b;  // run_a started first (or has the smaller id at equal starts)
  std::string host;
  double overlap_s = 0;
};

// Every pair of distinct runs with windows on the same host that intersect for > 0 s,
// ordered by host, then start.
std::vector<RunOverlap> find_overlaps(std::vector<RunWindow> windows);

// The window of every ingested run on each of its hosts, for runs whose ranks there all
// recorded a finish time.
Result<std::vector<RunWindow>> load_run_windows(sqlite::Database& study_db);

}  // namespace scalestudy::results
