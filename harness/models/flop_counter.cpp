#include "harness/models/flop_counter.hpp"

#include <memory>
#include <optional>
#include <string>

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::models {
namespace {

// RecordFunction callbacks are plain function pointers, so the cost being accumulated is
// reached through thread-local state that CostObserver sets for its lifetime.
thread_local ForwardCost* active_cost = nullptr;
// Counted operators in progress: ops nested in one (aten::linear calling aten::addmm in
// some releases, aten::matmul calling aten::mm) are not counted again.
thread_local int counted_depth = 0;

// Carries MACs per output element from the start callback (inputs visible) to the end
// callback (outputs visible).
struct MacsPerOutput : at::ObserverContext {
  int64_t macs_per_output = 0;
  bool is_conv = false;
};

// The operand whose last dimension is the reduction length, for matrix products.
std::optional<size_t> reduced_operand(const std::string& name) {
  if (name == "aten::linear" || name == "aten::mm" || name == "aten::matmul" ||
      name == "aten::bmm") {
    return 0;
  }
  if (name == "aten::addmm" || name == "aten::baddbmm") return 1;
  return std::nullopt;
}

// q [..., T, hd], k [..., S, hd]: QK^T and the weighted sum of V are T·S·hd MACs each per
// head, 2·S per element of the output [..., T, hd].
std::unique_ptr<at::ObserverContext> attention_context(const at::RecordFunction& fn) {
  const auto inputs = fn.inputs();
  if (inputs.size() < 2 || !inputs[1].isTensor()) return nullptr;
  auto context = std::make_unique<MacsPerOutput>();
  context->macs_per_output = 2 * inputs[1].toTensor().size(-2);
  ++counted_depth;
  return context;
}

std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn) {
  if (active_cost == nullptr || counted_depth > 0) return nullptr;
  const std::string name = compat::recorded_op_name(fn);
  if (name == "aten::scaled_dot_product_attention") return attention_context(fn);
  const bool is_conv = name == "aten::convolution";
  const std::optional<size_t> operand = is_conv ? std::nullopt : reduced_operand(name);
  if (!is_conv && !operand) return nullptr;
  const auto inputs = fn.inputs();
  const size_t tensor_index = is_conv ? 1 : *operand;
  if (inputs.size() <= tensor_index || !inputs[tensor_index].isTensor()) return nullptr;
  const torch::Tensor tensor = inputs[tensor_index].toTensor();
  auto context = std::make_unique<MacsPerOutput>();
  context->is_conv = is_conv;
  if (is_conv) {
    // Weight [out, in/groups, kh, kw]: MACs per output element.
    context->macs_per_output = tensor.numel() / tensor.size(0);
    const bool transposed = inputs.size() > 6 && inputs[6].isBool() && inputs[6].toBool();
    if (transposed) {
      // Transposed weight is [in, out/groups, kh, kw]: that many MACs per *input* element.
      active_cost->conv_macs += inputs[0].toTensor().numel() * context->macs_per_output;
      return nullptr;
    }
  } else {
    // linear's operand 0 is the input [..., in]; weight [out, in] gives the same length.
    context->macs_per_output = tensor.size(-1);
  }
  ++counted_depth;
  return context;
}

void on_op_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  if (context == nullptr || active_cost == nullptr) return;
  --counted_depth;
  const auto& outputs = fn.outputs();
  if (outputs.empty() || !outputs[0].isTensor()) return;
  const auto* per_output = static_cast<MacsPerOutput*>(context);
  const int64_t macs = outputs[0].toTensor().numel() * per_output->macs_per_output;
  (per_output->is_conv ? active_cost->conv_macs : active_cost->linear_macs) += macs;
}

class CostObserver {
 public:
  explicit CostObserver(ForwardCost* cost) {
    active_cost = cost;
    counted_depth = 0;
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(on_op_start, on_op_end).needsInputs(true).needsOutputs(true));
  }
  ~CostObserver() {
    at::removeCallback(handle_);
    active_cost = nullptr;
  }
  CostObserver(const CostObserver&) = delete;
  CostObserver& operator=(const CostObserver&) = delete;

 private:
  at::CallbackHandle handle_;
  at::RecordFunctionGuard enabled_{true};
};

}  // namespace

Result<ForwardCost> forward_cost_per_sample(torch::nn::AnyModule& module,
                                            const std::vector<int64_t>& sample_shape) {
  if (sample_shape.size() != 3) {
    return Status::error("forward cost: sample shape must be {C, H, W}");
  }
  std::vector<int64_t> batch_shape = {1};
  batch_shape.insert(batch_shape.end(), sample_shape.begin(), sample_shape.end());
  return forward_cost_of(module, torch::zeros(batch_shape));
}

Result<ForwardCost> forward_cost_of(torch::nn::AnyModule& module, const torch::Tensor& input) {
  std::shared_ptr<torch::nn::Module> root = module.ptr();
  const std::vector<torch::Tensor> parameters = root->parameters();
  const torch::Device device =
      parameters.empty() ? torch::Device(torch::kCPU) : parameters.front().device();
  const bool was_training = root->is_training();
  root->eval();
  ForwardCost cost;
  try {
    torch::NoGradGuard no_grad;
    CostObserver observer(&cost);
    module.forward(input.to(device));
  } catch (const c10::Error& error) {
    root->train(was_training);
    return Status::error(std::string("forward cost: the forward pass failed: ") +
                         error.what_without_backtrace());
  }
  root->train(was_training);
  if (cost.macs() == 0) {
    return Status::error("forward cost: no convolution or linear operator was observed");
  }
  return cost;
}

}  // namespace scalestudy::models
