#include "harness/train/ceiling_calibration.hpp"

#include <algorithm>
#include <chrono>

#include "harness/core/bus_bandwidth.hpp"
#include "harness/train/steady_seconds.hpp"

namespace scalestudy::train {
namespace {

using Clock = std::chrono::steady_clock;

// Large enough to reach a device's dense peak, small enough to stay quick: an 8192³
// product is 1.1 TFLOP (about 2 ms on an H100 in bf16), a 512³ one 0.27 GFLOP (about 10 ms
// on one CPU core, whose BLAS reaches its peak at that size already).
constexpr int64_t kGpuGemmSize = 8192;
constexpr int64_t kCpuGemmSize = 512;
// A quickstart-sized run (1.5 s epochs) spends ~2 % of its time here.
constexpr auto kGemmBudget = std::chrono::milliseconds(25);
constexpr int kGemmBatch = 2;  // products between two looks at the clock (one sync each)
constexpr int kAllreduceWarmup = 2;
constexpr int kAllreduceIterations = 5;

// Reading one element back waits for the work queued on the tensor's device.
void wait_for_device(const torch::Tensor& tensor) {
  static_cast<void>(tensor.flatten()[0].item());
}

// The best batch's rate, not the mean: a ceiling is what the device can do, and another
// process taking the cores for a moment (a loaded node) must not lower it.
double measure_gemm_tflops(const torch::Device& device, torch::ScalarType dtype, int64_t size) {
  torch::NoGradGuard no_grad;
  auto options = torch::TensorOptions().dtype(dtype).device(device);
  // Constant operands: the time does not depend on the values, and the run's random
  // streams (seeded for reproducibility and resumption) stay untouched.
  torch::Tensor a = torch::full({size, size}, 0.5, options);
  torch::Tensor b = torch::full({size, size}, 0.5, options);
  torch::Tensor out = torch::empty({size, size}, options);
  torch::mm_out(out, a, b);  // warm-up: kernel selection, allocator
  wait_for_device(out);
  const double flops_per_batch = 2.0 * static_cast<double>(size) * size * size * kGemmBatch;
  double best_tflops = 0;
  const Clock::time_point start = Clock::now();
  while (Clock::now() - start < kGemmBudget || best_tflops == 0) {
    const Clock::time_point batch_start = Clock::now();
    for (int i = 0; i < kGemmBatch; ++i) torch::mm_out(out, a, b);
    wait_for_device(out);
    best_tflops = std::max(best_tflops, flops_per_batch / seconds_since(batch_start) / 1e12);
  }
  return best_tflops;
}

// busbw of a float32 all-reduce of `bytes`, the slowest rank's time (as the sweep).
Result<double> measure_allreduce_busbw(const torch::Device& device,
                                       dist::Communicator& communicator, int64_t bytes) {
  const int64_t elements = std::max<int64_t>(1, bytes / 4);
  torch::Tensor buffer = torch::zeros({elements}, torch::dtype(torch::kFloat32).device(device));
  for (int i = 0; i < kAllreduceWarmup; ++i) {
    if (Status ran = communicator.allreduce_sum_async(buffer)->wait(); !ran) return ran;
  }
  wait_for_device(buffer);
  if (Status synced = communicator.barrier(); !synced) return synced;
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < kAllreduceIterations; ++i) {
    if (Status ran = communicator.allreduce_sum_async(buffer)->wait(); !ran) return ran;
  }
  wait_for_device(buffer);
  std::vector<double> time_us = {seconds_since(start) * 1e6 / kAllreduceIterations};
  if (Status reduced = communicator.allreduce_scalars(time_us, dist::ScalarReduction::kMax);
      !reduced) {
    return reduced;
  }
  return bandwidth::algbw_gbps(elements * 4, time_us[0]) *
         bandwidth::allreduce_bus_factor(communicator.world_size());
}

}  // namespace

std::map<std::string, double> Ceilings::summary() const {
  std::map<std::string, double> values = {{"ceiling_gemm_tflops", gemm_tflops},
                                          {"ceiling_gemm_size", static_cast<double>(gemm_size)},
                                          {"calibration_s", calibration_s}};
  if (allreduce_bytes > 0) {
    values["ceiling_allreduce_busbw_gbps"] = allreduce_busbw_gbps;
    values["ceiling_allreduce_bytes"] = static_cast<double>(allreduce_bytes);
  }
  return values;
}

torch::ScalarType gemm_dtype(gpu::Precision precision) {
  switch (precision) {
    case gpu::Precision::kFp16:
      return torch::kHalf;
    case gpu::Precision::kBf16:
      return torch::kBFloat16;
    case gpu::Precision::kFp32:
    case gpu::Precision::kTf32:
      break;
  }
  return torch::kFloat32;
}

Result<Ceilings> measure_ceilings(const torch::Device& device, gpu::Precision precision,
                                  dist::Communicator& communicator, int64_t gradient_bytes) {
  const Clock::time_point start = Clock::now();
  Ceilings ceilings;
  ceilings.gemm_size = device.is_cuda() ? kGpuGemmSize : kCpuGemmSize;
  ceilings.gemm_tflops = measure_gemm_tflops(device, gemm_dtype(precision), ceilings.gemm_size);
  if (communicator.world_size() > 1 && gradient_bytes > 0) {
    auto busbw = measure_allreduce_busbw(device, communicator, gradient_bytes);
    if (!busbw) return busbw.status().with_context("all-reduce calibration");
    ceilings.allreduce_bytes = std::max<int64_t>(4, gradient_bytes / 4 * 4);
    ceilings.allreduce_busbw_gbps = *busbw;
  }
  ceilings.calibration_s = seconds_since(start);
  return ceilings;
}

}  // namespace scalestudy::train
