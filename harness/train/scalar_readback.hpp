// Numbers the training loop computes on the run's device and reads on the host later, so
// the host never waits for the work it has just queued.
// ScalarReadback: start() queues a copy of a one-element tensor behind the work already on
// the device's current stream; read() waits for that copy alone (an event), not for what
// was queued after it. On a CUDA device the copy is non-blocking into pinned host memory;
// on the CPU start() copies at once and read() has nothing to wait for — one code path.
// StepLossReadback: each training step's loss, read one step late through two
// ScalarReadbacks taking turns (a step's copy is queued right after the step, so a CUDA
// graph's replay cannot overwrite its loss first).
// Used by one thread.
#pragma once

#include <c10/core/Event.h>
#include <torch/torch.h>

#include <array>
#include <optional>

namespace scalestudy::train {

class ScalarReadback {
 public:
  explicit ScalarReadback(const torch::Device& device);

  // Queues the copy of `value` (one element, any dtype, on the device) to the host.
  void start(const torch::Tensor& value);
  // The value of the last start(), once its copy is done; call only after a start().
  double read() const;

 private:
  torch::Device device_;
  torch::Tensor host_;                // float64; pinned for a device
  std::optional<c10::Event> copied_;  // recorded after the copy; none on the CPU
};

class StepLossReadback {
 public:
  explicit StepLossReadback(const torch::Device& device)
      : slots_{ScalarReadback(device), ScalarReadback(device)} {}

  // Starts bringing back this step's loss; returns the previous step's, if one is pending.
  std::optional<double> push(const torch::Tensor& loss);
  // The last pushed loss not returned yet (waiting for its step on a device), if any.
  std::optional<double> drain();

 private:
  std::array<ScalarReadback, 2> slots_;
  size_t next_ = 0;       // the slot push() fills; the other one holds the pending loss
  bool pending_ = false;  // the other slot holds a loss not returned yet
};

}  // namespace scalestudy::train
