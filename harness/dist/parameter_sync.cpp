#include "harness/dist/parameter_sync.hpp"

namespace scalestudy::dist {

Status broadcast_module_state(torch::nn::Module& module, Communicator& communicator) {
  if (communicator.world_size() == 1) return Status::ok();
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> tensors = module.parameters();
  for (const torch::Tensor& buffer : module.buffers()) tensors.push_back(buffer);
  for (const torch::Tensor& tensor : tensors) {
    if (Status sent = communicator.broadcast(tensor, 0); !sent) {
      return sent.with_context("broadcasting initial weights from rank 0");
    }
  }
  return Status::ok();
}

}  // namespace scalestudy::dist
