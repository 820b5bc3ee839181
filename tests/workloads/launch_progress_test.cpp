// What scalestudy-launch's hang watchdog reads as progress and how long it waits by default
// (workloads/launch/progress_watch.hpp): the larger of 10 minutes and 20 x the median step
// time, per file; a change of a rank log or rank database is progress, other files are not.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "workloads/launch/progress_watch.hpp"

using namespace scalestudy::launch;
using namespace std::chrono;
namespace fs = std::filesystem;

TEST_CASE("the default limit: 10 minutes, or 20 x the slowest file's median interval") {
  CHECK(default_hang_limit({}) == seconds(600));
  CHECK(default_hang_limit({{}, {}}) == seconds(600));
  CHECK(default_hang_limit({{1, 1.2, 0.8}}) == seconds(600));  // fast steps: the floor
  CHECK(default_hang_limit({{60, 58, 62}}) == seconds(1200));
  // A median, so a checkpoint's long pause or an evaluation does not stretch it.
  CHECK(default_hang_limit({{45, 45, 900, 45, 44}}) == seconds(900));
  CHECK(default_hang_limit({{40, 50}}) == seconds(900));  // an even count: the middle two
  // Per file: rank 0's log says a line every 0.1 s, its database gains a row every 40 s.
  CHECK(default_hang_limit({{0.1, 0.1, 0.1, 0.1}, {40, 40, 40}}) == seconds(800));
}

TEST_CASE("progress: rank logs and rank databases changing or appearing; the rest not") {
  const fs::path dir = fs::temp_directory_path() / "scalestudy_launch_progress";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string log = (dir / "rank0.log").string();
  std::ofstream(log) << "from an earlier attempt\n";
  ProgressWatch watch({log}, dir.string());
  auto now = steady_clock::now();
  CHECK_FALSE(watch.look(now));  // the first look notes what is there
  CHECK_FALSE(watch.look(now += seconds(1)));
  std::ofstream(log, std::ios::app) << "step 1\n";
  CHECK(watch.look(now += seconds(30)));
  std::ofstream(dir / "checkpoint.pt") << "weights";  // not progress
  std::ofstream(dir / "notes.sqlite") << "x";
  CHECK_FALSE(watch.look(now += seconds(1)));
  std::ofstream(dir / "rank1.sqlite-wal") << "page";  // a rank database appears
  CHECK(watch.look(now += seconds(30)));
  std::ofstream(log, std::ios::app) << "step 2\n";
  CHECK(watch.look(now += seconds(60)));
  // rank0.log changed at two looks 91 s apart: one interval.
  CHECK(watch.default_limit() == milliseconds(20 * 91'000));
}
