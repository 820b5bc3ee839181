// ProfilerWindow: the `--profile-steps FROM:TO` window of a run. Before global step FROM
// it starts the CUDA profiler (cudaProfilerStart, so `nsys --capture-range=cudaProfilerApi`
// and `ncu --profile-from-start off` capture only the window) and before step TO (or when
// destroyed inside the window) it stops it. The profiler API is looked up with dlopen in
// the CUDA runtime (else driver) the process has already loaded, so the harness needs no
// CUDA at build time and a CPU run loads none; there start/stop do nothing but the NVTX
// marks `profiler_start` / `profiler_stop` (payload: the step) in the scalestudy domain,
// which every instrumented run gets. Owned by the training loop; used from its thread only.
#pragma once

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"
#include "harness/metrics/nvtx_domain.hpp"

namespace scalestudy::profiling {

struct StepWindow {
  int64_t from_step = -1;  // first profiled global step (0-based)
  int64_t to_step = -1;    // first step after the window
  bool empty() const { return from_step < 0; }
};

// "FROM:TO" with 0 <= FROM < TO; "" is the empty window. Errors name the flag.
Result<StepWindow> parse_step_window(const std::string& text);

class ProfilerWindow {
 public:
  // `nvtx` receives the marks; null: none (instrumentation off).
  ProfilerWindow(StepWindow window, const metrics::NvtxDomain* nvtx);
  ProfilerWindow(const ProfilerWindow&) = delete;
  ProfilerWindow& operator=(const ProfilerWindow&) = delete;
  ~ProfilerWindow();

  // Call before each step's `step` range opens, with the step's global index.
  void before_step(int64_t global_step);
  bool capturing() const { return capturing_; }
  // Whether a loaded CUDA library offers the profiler API (false in CPU runs).
  bool has_cuda_profiler() const { return start_ != nullptr; }

 private:
  void stop(int64_t global_step);

  StepWindow window_;
  bool capturing_ = false;
  void* cuda_library_ = nullptr;  // dlopen handle of libcudart or libcuda
  int (*start_)() = nullptr;      // cudaProfilerStart / cuProfilerStart
  int (*stop_)() = nullptr;       // cudaProfilerStop / cuProfilerStop
  const metrics::NvtxDomain* nvtx_;
};

}  // namespace scalestudy::profiling
