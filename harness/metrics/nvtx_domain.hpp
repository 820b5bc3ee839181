// NvtxDomain: NVTX ranges in the "scalestudy" domain, so Nsight Systems timelines show
// each step's phases. Built on the header-only nvtx3 API when its header was found at
// configure time; otherwise (and whenever no profiler is attached) push/pop cost a
// pointer check. One per process, owned by the driver; push/pop are thread-safe (NVTX
// keeps one range stack per thread).
#pragma once

namespace scalestudy::metrics {

class NvtxDomain {
 public:
  explicit NvtxDomain(const char* name = "scalestudy");
  NvtxDomain(const NvtxDomain&) = delete;
  NvtxDomain& operator=(const NvtxDomain&) = delete;
  ~NvtxDomain();

  void push(const char* range_name) const;
  void pop() const;
  // Whether NVTX support was compiled in (the nvtx3 header was available).
  static bool available();

 private:
  void* handle_ = nullptr;  // nvtxDomainHandle_t
};

}  // namespace scalestudy::metrics
