#include "harness/dist/parameter_sync.hpp"

#include <map>

namespace scalestudy::dist {

Status broadcast_module_state(torch::nn::Module& module, Communicator& communicator) {
  if (!communicator.communicates()) return Status::ok();
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

Status broadcast_buffers(torch::nn::Module& module, Communicator& communicator) {
  if (!communicator.communicates()) return Status::ok();
  torch::NoGradGuard no_grad;
  std::map<at::ScalarType, std::vector<torch::Tensor>> by_type;
  for (const torch::Tensor& buffer : module.buffers()) {
    by_type[buffer.scalar_type()].push_back(buffer);
  }
  for (auto& [type, buffers] : by_type) {
    torch::Tensor flat = at::flatten_dense_tensors(buffers);
    if (Status sent = communicator.broadcast(flat, 0); !sent) {
      return sent.with_context("broadcasting buffers from rank 0");
    }
    std::vector<torch::Tensor> received = at::unflatten_dense_tensors(flat, buffers);
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(received[i]);
  }
  return Status::ok();
}

}  // namespace scalestudy::dist
