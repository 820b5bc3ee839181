#include "harness/gpu/runtime_versions.hpp"

namespace scalestudy::gpu {
namespace {

constexpr const char* kShadowHint =
    ": an older library on LD_LIBRARY_PATH (an environment module such as cuda/ or nccl/?) "
    "shadows the PyTorch wheel's; unload it or put the wheel's nvidia/*/lib first";

}  // namespace

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string nccl_version_text(int version) {
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

Status check_runtime_versions(const RuntimeVersions& versions) {
  if (versions.cuda_loaded / 1000 != versions.cuda_built / 1000) {
    return Status::error("the process loaded CUDA runtime " +
                         cuda_version_text(versions.cuda_loaded) + " but was built for CUDA " +
                         cuda_version_text(versions.cuda_built) + kShadowHint);
  }
  if (versions.cuda_driver / 1000 < versions.cuda_loaded / 1000) {
    return Status::error("the GPU driver supports CUDA up to " +
                         cuda_version_text(versions.cuda_driver) + ", older than the CUDA " +
                         cuda_version_text(versions.cuda_loaded) +
                         " runtime this build uses: update the driver or use a wheel for CUDA " +
                         std::to_string(versions.cuda_driver / 1000));
  }
  if (versions.nccl_loaded / 10000 != versions.nccl_built / 10000 ||
      versions.nccl_loaded < versions.nccl_built) {
    return Status::error("the process loaded NCCL " + nccl_version_text(versions.nccl_loaded) +
                         " but was built against NCCL " + nccl_version_text(versions.nccl_built) +
                         kShadowHint);
  }
  return Status::ok();
}

std::map<std::string, std::string> runtime_version_provenance(const RuntimeVersions& versions) {
  return {{"cuda_version", cuda_version_text(versions.cuda_loaded)},
          {"cuda_version_built", cuda_version_text(versions.cuda_built)},
          {"cuda_driver_version", cuda_version_text(versions.cuda_driver)},
          {"nccl_version", nccl_version_text(versions.nccl_loaded)},
          {"nccl_version_built", nccl_version_text(versions.nccl_built)}};
}

}  // namespace scalestudy::gpu
