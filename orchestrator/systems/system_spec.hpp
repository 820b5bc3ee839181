// A system: where runs execute, as data (systems/<id>.yaml, docs/systems.md). The
// scheduler and its own settings, what one node holds, the runtime (modules, container,
// env), the limits a run must fit, default run settings, the peak figures MFU divides by,
// and how to recognise the host. Plain data, read by system_schema.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/study/run_spec.hpp"
#include "orchestrator/study/source_location.hpp"

namespace scalestudy::systems {

struct SystemNode {
  int gpus = 0;           // GPUs per node; 0: a CPU node
  std::string gpu_model;  // as CUDA names it, e.g. "NVIDIA H100 80GB HBM3"
  int cores = 0;          // 0: not declared
  long long memory_mb = 0;
};

struct SystemLimits {
  std::optional<int> max_nodes;         // per run
  std::optional<int> max_time_minutes;  // per job (the partition's MaxTime)
  std::optional<int> max_jobs;          // queued or running at once (MaxSubmitJobs)
};

struct SystemDefaults {
  std::optional<int> time_minutes;
  std::optional<long long> mem_mb;
};

struct SystemPeak {
  std::map<std::string, double> tflops;  // dense, per device, by precision (fp32, bf16, ...)
  std::optional<double> link_gb_per_s;   // the inter-node link per device, GB/s
};

struct SystemSpec {
  std::string id;
  std::string variant;  // empty: the system as its file (and its parents) say
  std::string file;     // the file that defines `id`
  std::string description;
  std::string scheduler;                              // a registered backend: local, slurm, ...
  std::map<std::string, std::string> scheduler_keys;  // its own settings (partition, ...)
  SystemNode node;
  std::vector<std::string> srun_flags;
  // The runtime, as a study's `modules`, `container` and `env` state it.
  std::vector<std::string> modules;
  Container container;
  std::map<std::string, std::string> env;
  SystemLimits limits;
  SystemDefaults defaults;
  SystemPeak peak;
  std::string detect_hostname;        // an ECMAScript regex the whole host name must match
  std::vector<std::string> variants;  // the names `id:NAME` may select
  // Where the scalars of scheduler, node, limits, defaults and peak were set
  // ("limits.max_nodes" -> file:line:col), for errors that must point into the system file.
  std::map<std::string, SourceLocation> field_locations;
  std::string resolved_yaml;  // extends and the variant applied
  std::string hash;           // 16 hex digits of what changes how runs run
};

// "id" or "id:variant".
std::string system_label(const SystemSpec& system);

}  // namespace scalestudy::systems
