#include "harness/dist/connect.hpp"

#include "harness/dist/gloo_communicator.hpp"
#include "harness/gpu/nccl_communicator.hpp"

namespace scalestudy::dist {

Result<std::string> resolve_backend(const std::string& requested, const torch::Device& device) {
  if (requested == "auto") return std::string(device.is_cuda() ? "nccl" : "gloo");
  if (requested == "gloo" && device.is_cuda()) {
    return Status::error(
        "--backend gloo reduces CPU tensors; use nccl (or auto) with a CUDA device");
  }
  if (requested == "nccl" && !device.is_cuda()) {
    return Status::error("--backend nccl needs a CUDA device; this run is on the " + device.str());
  }
  if (requested == "gloo" || requested == "nccl") return requested;
  return Status::error("--backend: '" + requested + "' is not one of auto, gloo, nccl");
}

Result<std::unique_ptr<Communicator>> connect(const RankInfo& rank_info,
                                              const ConnectOptions& options) {
  if (rank_info.world_size == 1) {
    return std::unique_ptr<Communicator>(std::make_unique<SelfCommunicator>());
  }
  if (options.backend == "gloo") return make_gloo_communicator(rank_info, options);
#ifdef SCALESTUDY_WITH_CUDA
  if (options.backend == "nccl") return gpu::make_nccl_communicator(rank_info, options);
  const char* available = "gloo, nccl";
#else
  const char* available = "gloo; nccl needs a SCALESTUDY_CUDA build";
#endif
  return Status::error("communication backend '" + options.backend +
                       "' is not built in (available: " + available + ")");
}

}  // namespace scalestudy::dist
