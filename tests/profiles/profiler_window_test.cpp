// The --profile-steps window: parsing, and the profiler_start / profiler_stop marks it
// emits (recorded through the NVTX injection library) at the window's edges, with and
// without a domain. The cudaProfilerStart/Stop calls need a loaded CUDA runtime, which a
// CPU test process never has; here the window finds none.
#include "harness/profiling/profiler_window.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "harness/metrics/nvtx_domain.hpp"
#include "orchestrator/profiling/nvtx_trace.hpp"

namespace scalestudy::profiling {
namespace {

namespace fs = std::filesystem;

TEST_CASE("--profile-steps FROM:TO is parsed and checked") {
  auto window = parse_step_window("20:30");
  REQUIRE(window.is_ok());
  CHECK(window->from_step == 20);
  CHECK(window->to_step == 30);
  CHECK(parse_step_window("")->empty());
  for (const char* bad : {"30:20", "5:5", "5", "a:b", "-1:3", "1:2:3"}) {
    auto parsed = parse_step_window(bad);
    REQUIRE_FALSE(parsed.is_ok());
    CHECK(parsed.status().message() ==
          std::string("flag --profile-steps: '") + bad +
              "' is not FROM:TO with 0 <= FROM < TO (global steps, TO excluded)");
  }
}

TEST_CASE("the window marks its start and stop steps in the scalestudy domain") {
  const fs::path trace_path =
      fs::temp_directory_path() / ("scalestudy-window-" + std::to_string(::getpid()) + ".json");
  // NVTX loads its injection at the first NVTX call of the process, which is below.
  setenv("NVTX_INJECTION64_PATH",
         (std::string(std::getenv("SCALESTUDY_BINARY_DIR")) + "/bin/libscalestudy_nvtx_trace.so")
             .c_str(),
         1);
  setenv("SCALESTUDY_NVTX_TRACE", trace_path.string().c_str(), 1);
  metrics::NvtxDomain nvtx;
  {
    ProfilerWindow window(*parse_step_window("2:4"), &nvtx);
    CHECK_FALSE(window.has_cuda_profiler());
    for (int64_t step = 0; step < 6; ++step) {
      window.before_step(step);
      CHECK(window.capturing() == (step >= 2 && step < 4));
    }
  }
  {
    ProfilerWindow uninstrumented(*parse_step_window("0:2"), nullptr);
    for (int64_t step = 0; step < 3; ++step) {
      uninstrumented.before_step(step);
      CHECK(uninstrumented.capturing() == (step < 2));
    }
  }  // no domain: the window still works, without marks
  {
    ProfilerWindow cut_short(*parse_step_window("1:100"), &nvtx);
    cut_short.before_step(0);
    cut_short.before_step(1);
    CHECK(cut_short.capturing());
  }  // the run ends inside the window: the destructor stops it
  auto trace = read_nvtx_trace(trace_path.string());
  REQUIRE_MESSAGE(trace.is_ok(), trace.status().message());
  REQUIRE(trace->marks.size() == 4);
  CHECK(trace->marks[0].domain == "scalestudy");
  CHECK(trace->marks[0].name == "profiler_start");
  CHECK(trace->marks[0].payload == 2);
  CHECK(trace->marks[1].name == "profiler_stop");
  CHECK(trace->marks[1].payload == 4);
  CHECK(trace->marks[2].name == "profiler_start");
  CHECK(trace->marks[2].payload == 1);
  CHECK(trace->marks[3].name == "profiler_stop");
  CHECK(trace->marks[3].payload == 100);
  fs::remove(trace_path);
}

}  // namespace
}  // namespace scalestudy::profiling
