// What a run recorded about the devices it trained on, from the study database: the kind
// of device its ranks ran on (m_run.device without its index: "cuda", "cpu"), the GPU
// model its first rank saw (m_provenance gpu_model) and the GPUs it used, one per rank on a
// CUDA device. The report takes a run's device, GPU model and GPU count from here, never
// from what its study planned. Functions over a Database used by one thread.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/results/query/prepared_queries.hpp"

namespace scalestudy::results {

struct RunDevice {
  std::string device;     // "cuda", "cpu"; ranks on different kinds: "cpu+cuda"; empty: none
  std::string gpu_model;  // e.g. "NVIDIA H200"; empty on CPU runs
  int gpus = 0;           // ranks that ran on a CUDA device
};

// Empty when the run recorded no ranks (a run measured by its output alone).
Result<RunDevice> load_run_device(PreparedQueries& queries, const std::string& run_id);

}  // namespace scalestudy::results
