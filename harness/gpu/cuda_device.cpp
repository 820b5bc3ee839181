#include "harness/gpu/cuda_device.hpp"

#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>

#include "harness/gpu/cuda_compat.hpp"

namespace scalestudy::gpu {
namespace {

Status cuda_error(const char* what, cudaError_t code) {
  return Status::error(std::string(what) + ": " + cudaGetErrorString(code));
}

}  // namespace

Result<CudaDeviceInfo> select_cuda_device(int local_rank) {
  int count = 0;
  if (cudaError_t code = cudaGetDeviceCount(&count); code != cudaSuccess) {
    return cuda_error("no CUDA device visible (cudaGetDeviceCount)", code);
  }
  if (count == 0) return Status::error("no CUDA device visible (CUDA_VISIBLE_DEVICES?)");
  CudaDeviceInfo info;
  info.index = local_rank % count;
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(info.index));
  cudaDeviceProp properties{};
  if (cudaError_t code = cudaGetDeviceProperties(&properties, info.index); code != cudaSuccess) {
    return cuda_error("cudaGetDeviceProperties", code);
  }
  info.name = properties.name;
  info.compute_major = properties.major;
  info.compute_minor = properties.minor;
  info.total_memory_bytes = static_cast<int64_t>(properties.totalGlobalMem);
  info.multiprocessors = properties.multiProcessorCount;
  char bus_id[32] = {};
  if (cudaError_t code = cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), info.index);
      code != cudaSuccess) {
    return cuda_error("cudaDeviceGetPCIBusId", code);
  }
  info.pci_bus_id = bus_id;
  return info;
}

MemoryPeaks cuda_memory_peaks(int device) {
  return MemoryPeaks{compat::allocator_peak_allocated_bytes(device),
                     compat::allocator_peak_reserved_bytes(device)};
}

void reset_cuda_memory_peaks(int device) {
  compat::allocator_reset_peaks(device);
}

}  // namespace scalestudy::gpu
