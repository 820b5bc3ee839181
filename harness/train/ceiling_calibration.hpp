// Ceiling calibration: what this allocation can do, measured before a run trains, so the
// report can set the run's throughput against it instead of against a datasheet alone:
// dense matrix-multiply throughput (torch::mm of square matrices on the run's device, in
// the dtype of the run's precision, under its math modes) and all-reduce bus bandwidth at
// the run's gradient size over its own communicator (nccl-tests' busbw, world of one: no
// all-reduce). Both are short: the GEMM runs for about 25 ms (its best batch counts), the
// all-reduce a fixed few times (every rank issues the same collectives), so a typical run
// pays well under 2 % for them; --calibrate false skips it.
// Functions of the training thread; every rank calls measure_ceilings.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/gpu/precision.hpp"

namespace scalestudy::train {

struct Ceilings {
  int64_t gemm_size = 0;  // n of the n×n·n×n products
  double gemm_tflops = 0;
  int64_t allreduce_bytes = 0;  // 0: no all-reduce measured (a world of one)
  double allreduce_busbw_gbps = 0;
  double calibration_s = 0;  // wall time of the whole calibration

  // The run database's summary entries: ceiling_gemm_tflops, ceiling_gemm_size,
  // ceiling_allreduce_busbw_gbps and ceiling_allreduce_bytes (with an all-reduce),
  // calibration_s.
  std::map<std::string, double> summary() const;
};

// The element type a run of `precision` multiplies in: float32 (fp32, tf32), float16,
// bfloat16.
torch::ScalarType gemm_dtype(gpu::Precision precision);

// Measures both ceilings; `gradient_bytes` is the all-reduce's message size.
Result<Ceilings> measure_ceilings(const torch::Device& device, gpu::Precision precision,
                                  dist::Communicator& communicator, int64_t gradient_bytes);

}  // namespace scalestudy::train
