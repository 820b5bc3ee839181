#include "harness/profiling/profiler_window.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <utility>

namespace scalestudy::profiling {
namespace {

// The profiler API of a CUDA library the process has already loaded: the runtime
// (cudaProfilerStart), else the driver (cuProfilerStart, same effect on the current
// context). Nothing is loaded: a CPU run gets no CUDA.
struct ProfilerApi {
  void* library = nullptr;
  int (*start)() = nullptr;
  int (*stop)() = nullptr;
};

ProfilerApi find_profiler_api() {
  const std::pair<const char*, const char*> kCandidates[] = {{"libcudart.so", "cudaProfiler"},
                                                             {"libcudart.so.13", "cudaProfiler"},
                                                             {"libcudart.so.12", "cudaProfiler"},
                                                             {"libcudart.so.11.0", "cudaProfiler"},
                                                             {"libcuda.so.1", "cuProfiler"}};
  for (const auto& [soname, prefix] : kCandidates) {
    void* library = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
    if (library == nullptr) continue;
    ProfilerApi api;
    api.start =
        reinterpret_cast<int (*)()>(dlsym(library, (std::string(prefix) + "Start").c_str()));
    api.stop = reinterpret_cast<int (*)()>(dlsym(library, (std::string(prefix) + "Stop").c_str()));
    if (api.start != nullptr && api.stop != nullptr) {
      api.library = library;
      return api;
    }
    dlclose(library);
  }
  return {};
}

bool parse_step(const std::string& text, int64_t& step) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  step = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

}  // namespace

Result<StepWindow> parse_step_window(const std::string& text) {
  if (text.empty()) return StepWindow{};
  size_t colon = text.find(':');
  StepWindow window;
  if (colon == std::string::npos || !parse_step(text.substr(0, colon), window.from_step) ||
      !parse_step(text.substr(colon + 1), window.to_step) || window.from_step >= window.to_step) {
    return Status::error("flag --profile-steps: '" + text +
                         "' is not FROM:TO with 0 <= FROM < TO (global steps, TO excluded)");
  }
  return window;
}

ProfilerWindow::ProfilerWindow(StepWindow window, const metrics::NvtxDomain* nvtx)
    : window_(window), nvtx_(nvtx) {
  if (window_.empty()) return;
  ProfilerApi api = find_profiler_api();
  cuda_library_ = api.library;
  start_ = api.start;
  stop_ = api.stop;
}

ProfilerWindow::~ProfilerWindow() {
  if (capturing_) stop(window_.to_step);
  if (cuda_library_ != nullptr) dlclose(cuda_library_);
}

void ProfilerWindow::before_step(int64_t global_step) {
  if (window_.empty()) return;
  if (!capturing_ && global_step >= window_.from_step && global_step < window_.to_step) {
    if (start_ != nullptr) start_();
    capturing_ = true;
    if (nvtx_) nvtx_->mark("profiler_start", global_step);
  } else if (capturing_ && global_step >= window_.to_step) {
    stop(global_step);
  }
}

void ProfilerWindow::stop(int64_t global_step) {
  if (stop_ != nullptr) stop_();
  capturing_ = false;
  if (nvtx_) nvtx_->mark("profiler_stop", global_step);
}

}  // namespace scalestudy::profiling
