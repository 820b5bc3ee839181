#include "workloads/ddpm/weights_file.hpp"

namespace scalestudy::ddpm {
namespace {

// Parameters and buffers, each under its dotted name.
std::vector<std::pair<std::string, torch::Tensor>> named_tensors(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : module.named_parameters()) tensors.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers()) tensors.emplace_back(item.key(), item.value());
  return tensors;
}

std::string shape_text(const torch::Tensor& tensor) {
  return c10::str(tensor.sizes());
}

}  // namespace

Status save_weights(const torch::nn::Module& module, const std::string& path) {
  try {
    torch::serialize::OutputArchive archive;
    for (const auto& [name, tensor] : named_tensors(module)) {
      archive.write(name, tensor.detach().to(torch::kCPU));
    }
    archive.save_to(path);
  } catch (const c10::Error& error) {
    return Status::error("cannot save weights to " + path + ": " + error.what_without_backtrace());
  }
  return Status::ok();
}

Status load_weights(torch::nn::Module& module, const std::string& path) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error& error) {
    return Status::error("cannot load weights from " + path + ": " +
                         error.what_without_backtrace());
  }
  std::vector<std::pair<std::string, torch::Tensor>> tensors = named_tensors(module);
  if (archive.keys().size() != tensors.size()) {
    return Status::error(path + " holds " + std::to_string(archive.keys().size()) +
                         " tensors, the model " + std::to_string(tensors.size()) +
                         ": trained with other model flags?");
  }
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : tensors) {
    torch::Tensor stored;
    if (!archive.try_read(name, stored)) {
      return Status::error(path + " has no '" + name + "': trained with other model flags?");
    }
    if (!stored.sizes().equals(tensor.sizes())) {
      return Status::error(path + ": '" + name + "' is " + shape_text(stored) + ", the model's " +
                           shape_text(tensor) + ": trained with other model flags?");
    }
    tensor.copy_(stored);
  }
  return Status::ok();
}

}  // namespace scalestudy::ddpm
