// LibTorch version differences, in one place. The harness builds against Debian's
// LibTorch 1.13 (CPU) and against PyTorch 2.x wheels on GPU machines; code elsewhere calls
// these helpers instead of spelling a version-specific API. Stateless; thread-safe.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/record_function.h>
#include <torch/version.h>

#include <cstdint>
#include <optional>
#include <string>

namespace scalestudy::compat {

// A CPU random generator seeded explicitly, independent of the global torch seed.
inline at::Generator make_cpu_generator(uint64_t seed) {
  return at::detail::createCPUGenerator(seed);
}

// The dispatcher name of a recorded operator, e.g. "aten::convolution" (RecordFunction's
// name() has returned a StringView in older releases and const char* since 1.10).
inline std::string recorded_op_name(const at::RecordFunction& fn) {
  return std::string(fn.name());
}

}  // namespace scalestudy::compat

// ---- autocast (owned by harness/gpu) ---------------------------------------------------
// PyTorch 2.4 replaced the CUDA-only autocast switches (set_enabled, set_autocast_gpu_dtype)
// with per-device ones taking an at::DeviceType and deprecated the old names.
#include <ATen/autocast_mode.h>

#define SCALESTUDY_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||             \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace scalestudy::compat {

// Autocast state of one device type (CUDA or CPU) on the calling thread.
inline bool autocast_enabled(c10::DeviceType device_type) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(device_type);
#else
  return device_type == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                              : at::autocast::is_cpu_enabled();
#endif
}

inline at::ScalarType autocast_dtype(c10::DeviceType device_type) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(device_type);
#else
  return device_type == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                              : at::autocast::get_autocast_cpu_dtype();
#endif
}

inline void set_autocast(c10::DeviceType device_type, bool enabled, at::ScalarType dtype) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(device_type, enabled);
  at::autocast::set_autocast_dtype(device_type, dtype);
#else
  if (device_type == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}

}  // namespace scalestudy::compat
// ---- end autocast ------------------------------------------------------------------------

// ---- multi-tensor update with a tensor scale (owned by harness/gpu) ---------------------
// PyTorch 2.1 added _foreach_mul with a one-element tensor operand (the form capturable
// optimizers use); LibTorch 1.13 (the CPU build) scales tensor by tensor.
#include <ATen/Functions.h>

namespace scalestudy::compat {

// params[i] -= scale * updates[i]; `scale` is a one-element tensor on the params' device.
inline void foreach_sub_scaled_(at::TensorList params, at::TensorList updates,
                                const at::Tensor& scale) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 1)
  at::_foreach_sub_(params, at::_foreach_mul(updates, scale));
#else
  for (size_t i = 0; i < params.size(); ++i) params[i].sub_(updates[i] * scale);
#endif
}

}  // namespace scalestudy::compat
// ---- end multi-tensor update -------------------------------------------------------------

// ---- fused optimizer kernels (owned by harness/gpu) --------------------------------------
// PyTorch 2.4 has fused SGD and AdamW kernels on CPU and CUDA that read the learning rate
// and fp16's found-inf flag from device tensors: an optimizer step without a host
// synchronisation, skipped on the device when a gradient overflowed. LibTorch 1.13 has
// neither; callers test kHasFusedOptimizers and take their multi-tensor path instead (the
// wrappers below fail loudly if called there).
namespace scalestudy::compat {

inline constexpr bool kHasFusedOptimizers = SCALESTUDY_TORCH_AT_LEAST(2, 4);

// `found_inf` undefined: always step.
inline void fused_sgd_(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers,
                       double weight_decay, double momentum, const at::Tensor& lr, double dampening,
                       bool nesterov, bool is_first_step, const at::Tensor& found_inf) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  at::_fused_sgd_(params, grads, momentum_buffers, weight_decay, momentum, lr, dampening, nesterov,
                  /*maximize=*/false, is_first_step, /*grad_scale=*/std::nullopt,
                  found_inf.defined() ? std::optional<at::Tensor>(found_inf) : std::nullopt);
#else
  TORCH_CHECK(false, "fused SGD needs LibTorch 2.4 or newer");
#endif
}

// `steps`: one float tensor per parameter, already counting this step (the kernel reads
// them for bias correction and does not advance them).
inline void fused_adamw_(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                         at::TensorList exp_avg_sqs, at::TensorList steps, const at::Tensor& lr,
                         double beta1, double beta2, double weight_decay, double eps,
                         const at::Tensor& found_inf) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, steps, lr, beta1,
                    beta2, weight_decay, eps, /*amsgrad=*/false, /*maximize=*/false,
                    /*grad_scale=*/std::nullopt,
                    found_inf.defined() ? std::optional<at::Tensor>(found_inf) : std::nullopt);
#else
  TORCH_CHECK(false, "fused AdamW needs LibTorch 2.4 or newer");
#endif
}

}  // namespace scalestudy::compat
// ---- end fused optimizer kernels ---------------------------------------------------------

// ---- waiting for a device event (owned by harness/train) ---------------------------------
// The device-generic c10::Event gained synchronize() with PyTorch 2.4's torch.Event; before,
// only query() is there. The CPU build (LibTorch 1.13) never records one: its events would
// belong to a CUDA device.
#include <c10/core/Event.h>

#include <thread>

namespace scalestudy::compat {

// Blocks the calling thread until the work before the event's last record() finished.
inline void wait_for_event(const c10::Event& event) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  event.synchronize();
#else
  while (!event.query()) std::this_thread::yield();
#endif
}

}  // namespace scalestudy::compat
// ---- end waiting for a device event ------------------------------------------------------

// ---- c10d process groups (owned by harness/dist) ---------------------------------------
// PyTorch 2.0 split c10d's process group from its backends: ProcessGroupGloo and
// ProcessGroupNCCL derive from c10d::Backend; in LibTorch 1.13 they derive from
// c10d::ProcessGroup. Both spell allreduce/broadcast/barrier the same way, returning
// c10d::Work. Since 2.4 a backend can be bound to one device and connect eagerly, shuts
// down cleanly (flushing its work), and ProcessGroupNCCL hands out its NCCL communicator.
// The helpers are templates so that this header needs neither gloo nor NCCL headers.
#if SCALESTUDY_TORCH_AT_LEAST(2, 0)
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

namespace scalestudy::compat {

#if SCALESTUDY_TORCH_AT_LEAST(2, 0)
using ProcessGroupBackend = c10d::Backend;
#else
using ProcessGroupBackend = c10d::ProcessGroup;
#endif

inline constexpr bool kHasEagerProcessGroups = SCALESTUDY_TORCH_AT_LEAST(2, 4);

// Binds `backend` to `device` and creates its communicator now, so that a connection
// failure surfaces at rendezvous; before 2.4, the first collective connects.
template <typename Backend>
void connect_eagerly(Backend& backend, const c10::Device& device) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  backend.setBoundDeviceId(device);
  backend.eagerConnectSingleDevice(device);
#endif
}

// Flushes outstanding work and releases the backend's communicators (a no-op before 2.4).
template <typename Backend>
void shut_down(Backend& backend) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  backend.shutdown();
#endif
}

// The ncclComm_t of ProcessGroupNCCL's communicator on the current device, as an integer;
// 0 before 2.4 or before the group connected.
template <typename NcclGroup>
int64_t nccl_communicator_handle(NcclGroup& group) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 4)
  return group.getCommPtr();
#else
  return 0;
#endif
}

}  // namespace scalestudy::compat
// ---- end c10d process groups -------------------------------------------------------------

// ---- collecting warnings (owned by tests/gpu) --------------------------------------------
// PyTorch 2.0 hands a warning handler one c10::Warning and moved the handler's accessors
// into c10::WarningUtils; LibTorch 1.13 passes location, message and verbatim flag, with
// the accessors in c10::Warning.
#include <c10/util/Exception.h>

#include <string>
#include <vector>

namespace scalestudy::compat {

// While alive, keeps the messages of the c10 warnings raised on the constructing thread
// (autograd replays its worker threads' warnings on the thread that called backward)
// instead of printing them; restores the previous handler when destroyed.
class WarningCollector : public c10::WarningHandler {
 public:
#if SCALESTUDY_TORCH_AT_LEAST(2, 0)
  WarningCollector() : previous_(c10::WarningUtils::get_warning_handler()) {
    c10::WarningUtils::set_warning_handler(this);
  }
  ~WarningCollector() override {
    c10::WarningUtils::set_warning_handler(previous_);
  }
  void process(const c10::Warning& warning) override {
    messages.push_back(warning.msg());
  }
#else
  WarningCollector() : previous_(c10::Warning::get_warning_handler()) {
    c10::Warning::set_warning_handler(this);
  }
  ~WarningCollector() override {
    c10::Warning::set_warning_handler(previous_);
  }
  void process(const c10::SourceLocation&, const std::string& message, const bool) override {
    messages.push_back(message);
  }
#endif
  WarningCollector(const WarningCollector&) = delete;
  WarningCollector& operator=(const WarningCollector&) = delete;

  std::vector<std::string> messages;

 private:
  c10::WarningHandler* previous_;
};

}  // namespace scalestudy::compat
// ---- end collecting warnings -------------------------------------------------------------

// ---- fused attention (owned by workloads/lm) ----------------------------------------------
// PyTorch 2.0 added scaled_dot_product_attention (flash and memory-efficient kernels on
// CUDA); LibTorch 1.13 has none, and callers test kHasFusedAttention and take the explicit
// softmax(QK^T)V path there (the wrapper fails loudly if called).
namespace scalestudy::compat {

inline constexpr bool kHasFusedAttention = SCALESTUDY_TORCH_AT_LEAST(2, 0);

// Causal attention of q, k, v [B, heads, T, d_head], scaled by 1/sqrt(d_head).
inline at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
#if SCALESTUDY_TORCH_AT_LEAST(2, 0)
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0,
                                          /*is_causal=*/true);
#else
  TORCH_CHECK(false, "fused attention needs LibTorch 2.0 or newer");
#endif
}

}  // namespace scalestudy::compat
// ---- end fused attention -----------------------------------------------------------------
