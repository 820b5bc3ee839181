// The CUDA device of this rank: selection by local rank, the facts the run database
// records about it (name, PCI bus id for NVML, compute capability), and the caching
// allocator's memory peaks. Thin wrappers over the CUDA runtime and c10::cuda; each call
// acts on the given device only. Thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"
#include "harness/gpu/memory_peaks.hpp"

namespace scalestudy::gpu {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;  // "0000:3B:00.0", the key NvmlOptions::pci_bus_id takes
  int compute_major = 0, compute_minor = 0;
  int64_t total_memory_bytes = 0;
  int multiprocessors = 0;
};

// Makes `local_rank` modulo the visible device count the current device of the calling
// thread (one GPU per rank; CUDA_VISIBLE_DEVICES narrows what is visible) and describes
// it; an error when no CUDA device is visible.
Result<CudaDeviceInfo> select_cuda_device(int local_rank);

MemoryPeaks cuda_memory_peaks(int device);
void reset_cuda_memory_peaks(int device);

}  // namespace scalestudy::gpu
