#include "workloads/lm/linear_gelu.hpp"

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::lm {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class LinearGelu : public torch::autograd::Function<LinearGelu> {
 public:
  // x2d [rows, in], already in the compute dtype, as are weight and bias.
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x2d,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    ctx->save_for_backward({x2d, weight, bias});
    return at::_addmm_activation(bias, x2d, weight.t(), /*beta=*/1, /*alpha=*/1,
                                 /*use_gelu=*/true);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor &x2d = saved[0], &weight = saved[1], &bias = saved[2];
    const torch::Tensor pre_activation = torch::addmm(bias, x2d, weight.t());
    const torch::Tensor grad = at::gelu_backward(grad_outputs[0], pre_activation,
                                                 epilogue_gelu_approximation(x2d.device().type()));
    return {torch::mm(grad, weight), torch::mm(grad.t(), x2d), grad.sum(0)};
  }
};

}  // namespace

torch::Tensor linear_gelu(const torch::Tensor& x, const torch::Tensor& weight,
                          const torch::Tensor& bias) {
  const c10::DeviceType device = x.device().type();
  const at::ScalarType dtype =
      compat::autocast_enabled(device) ? compat::autocast_dtype(device) : x.scalar_type();
  // The casts are differentiable: gradients return in each input's own dtype.
  torch::Tensor x2d = x.reshape({-1, x.size(-1)}).to(dtype);
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = weight.size(0);
  return LinearGelu::apply(x2d, weight.to(dtype), bias.to(dtype)).view(shape);
}

const char* epilogue_gelu_approximation(c10::DeviceType device_type) {
  return device_type == c10::DeviceType::CUDA ? "tanh" : "none";
}

}  // namespace scalestudy::lm
