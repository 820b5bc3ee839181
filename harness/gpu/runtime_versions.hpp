// The CUDA runtime and NCCL the process actually loaded, against those the harness (and
// the LibTorch it links) was built for. An environment module (`module load cuda/12.2
// nccl/2.18`) can put an older libcudart or libnccl on LD_LIBRARY_PATH ahead of the
// PyTorch wheel's; the run would then fail obscurely or measure another library.
// check_runtime_versions() turns that into a start-up error naming both versions.
// Plain values and pure functions; thread-safe.
#pragma once

#include <map>
#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::gpu {

struct RuntimeVersions {
  int cuda_built = 0;   // CUDART_VERSION at compile time: major * 1000 + minor * 10
  int cuda_loaded = 0;  // cudaRuntimeGetVersion
  int cuda_driver = 0;  // cudaDriverGetVersion: the newest CUDA the driver supports
  int nccl_built = 0;   // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch
  int nccl_loaded = 0;  // ncclGetVersion
};

// "12.8" from 12080.
std::string cuda_version_text(int version);
// "2.27.3" from 22703.
std::string nccl_version_text(int version);

// An error when the loaded CUDA runtime has another major version than the build's, when
// the driver's major version is older than the loaded runtime's, or when the loaded NCCL
// has another major version or is older than the one built against (a newer NCCL of the
// same major is ABI-compatible).
Status check_runtime_versions(const RuntimeVersions& versions);

// Provenance: "cuda_version" (loaded), "cuda_version_built", "cuda_driver_version",
// "nccl_version" (loaded), "nccl_version_built".
std::map<std::string, std::string> runtime_version_provenance(const RuntimeVersions& versions);

}  // namespace scalestudy::gpu
