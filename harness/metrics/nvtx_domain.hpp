// NvtxDomain: NVTX ranges and marks in the "scalestudy" domain, so Nsight Systems timelines
// show each step's phases. Every range and mark carries an int64 payload — the global step,
// an epoch, a bucket's bytes (docs/profiling.md) — so a timeline says which step it shows
// without a string formatted per step. Built on the header-only nvtx3 API when its header
// was found at configure time; without it, and whenever no profiler is attached (NVTX then
// nulls its function pointers), a push/pop/mark costs a pointer check. One per process,
// owned by the training loop; thread-safe (NVTX keeps one range stack per thread).
#pragma once

#include <cstdint>

namespace scalestudy::metrics {

class NvtxDomain {
 public:
  explicit NvtxDomain(const char* name = "scalestudy");
  NvtxDomain(const NvtxDomain&) = delete;
  NvtxDomain& operator=(const NvtxDomain&) = delete;
  ~NvtxDomain();

  void push(const char* range_name, int64_t payload) const;
  void pop() const;
  void mark(const char* name, int64_t payload) const;
  // Whether NVTX support was compiled in (the nvtx3 header was available).
  static bool available();

 private:
  void* handle_ = nullptr;  // nvtxDomainHandle_t
};

// One push/pop range as a scope; a null domain (instrumentation off) makes it a no-op.
class NvtxRange {
 public:
  NvtxRange(const NvtxDomain* domain, const char* name, int64_t payload) : domain_(domain) {
    if (domain_) domain_->push(name, payload);
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  ~NvtxRange() {
    if (domain_) domain_->pop();
  }

 private:
  const NvtxDomain* domain_;
};

}  // namespace scalestudy::metrics
