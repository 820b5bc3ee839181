// RunSpec: one fully resolved run of a study (no ${references} left, batch math done,
// resources computed). The planner produces them; the schedulers render and submit them;
// the results module joins measurements to them by run_id. Plain value type.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/study/metric_spec.hpp"
#include "orchestrator/study/workload_invocation.hpp"

namespace scalestudy {

enum class StudyKind { kStrong, kWeak, kSensitivity, kCustom };
enum class LauncherKind { kSrun, kTorchrun };

struct SlurmOptions {
  std::string partition, account, qos, constraint;
  std::string reservation;     // sbatch --reservation; a system's scheduler.reservation
  int time_limit_minutes = 0;  // 0: the partition's default
  int cpus_per_task = 1;
  long long memory_mb = 0;                 // 0: the partition's default; per node
  int gpus_per_node = 0;                   // 0: a CPU run (gloo)
  std::vector<std::string> extra_options;  // raw "--key=value" sbatch options
  // sbatch --exclude: nodes (SLURM host lists) a retry leaves out after a node or hang
  // failure (docs/failures.md). Set when an attempt is prepared, never part of the run id.
  std::vector<std::string> exclude_nodes;
  // The hang watchdog of scalestudy-launch (policy.hang_after): seconds without a change of
  // any rank's log or database before the ranks' stacks are taken and the run stopped; 0:
  // off; unset: the launcher's default rule. Set when an attempt is prepared, never part of
  // the run id.
  std::optional<int> hang_after_s;
};

struct Container {
  std::string image;               // apptainer image; empty: no container
  std::vector<std::string> binds;  // "src:dst" pairs
};

// What a run's system declares of a node, compared at ingest with what the run saw.
struct DeclaredNode {
  int gpus = -1;                 // per node; -1: not declared
  std::string gpu_model;         // empty: not declared
  int cores = 0;                 // 0: not declared
  std::string hostname_pattern;  // the system's detect.hostname; empty: none
};

// The system a run executes on (systems/<id>.yaml, docs/systems.md); an empty id: the run
// was planned without systems (a study loaded by a test or a tool).
struct RunSystem {
  std::string id, variant;
  std::string hash;  // 16 hex digits of the resolved system's content
  // Named by the study's `systems:` or --system, so part of the run id; false for the
  // system detected or defaulted to, which is only recorded: it changes neither the run's
  // id nor its settings.
  bool named = false;
  std::string scheduler;  // the backend its jobs go to
  // The backend's own settings from the system file ("max_parallel" -> "2", "url" -> ...).
  std::map<std::string, std::string> scheduler_settings;
  std::vector<std::string> srun_flags;  // launcher.srun_flags, after `srun` on every step
  DeclaredNode node;
  // The system's own peak figures (peak.tflops by precision), which MFU divides by in place
  // of the datasheet's; empty: the datasheet's.
  std::map<std::string, double> peak_tflops;
  int max_time_minutes = 0;  // limits.max_time, which caps a packed allocation; 0: none
  std::string resolved_yaml;

  // "id" or "id:variant"; empty without a system.
  std::string label() const { return variant.empty() ? id : id + ":" + variant; }
};

struct RunSpec {
  std::string run_id;  // 16 lowercase hex digits: hash of the canonical resolved content
  std::string study;
  StudyKind kind = StudyKind::kCustom;
  int repeat = 0;  // 0-based repeat index; part of the hashed content

  // Scale: world_size ranks = nodes * tasks_per_node; one rank per GPU on GPU runs.
  int nodes = 1;
  int tasks_per_node = 1;
  int world_size = 1;
  int global_batch = 0;
  int per_gpu_batch = 0;  // per rank on CPU runs

  // The workload binary (name resolved next to the CLI, or a path) and its parameters,
  // passed as `--key value` flags in sorted key order (see WorkloadInvocation); the batch
  // is not among them: workload_params() adds batch_size from per_gpu_batch.
  std::string workload;
  std::map<std::string, std::string> params;
  // Leading arguments, flag spelling, parameters passed as environment variables.
  WorkloadInvocation invocation;
  // Files rendered per run from the study's templates (workload.files): name in the run
  // folder -> content; ${run_dir} in it is replaced when the file is written.
  std::map<std::string, std::string> files;
  // Figures extracted from each rank's captured output (the study's `metrics:`).
  std::vector<MetricSpec> metrics;

  // Parameters whose value differs between runs of the study (for display and grouping),
  // e.g. {"bucket_cap_mb": "25", "precision": "bf16"}; excludes repeat.
  std::map<std::string, std::string> varied;

  SlurmOptions slurm;
  LauncherKind launcher = LauncherKind::kSrun;
  std::vector<std::string> modules;
  Container container;
  std::map<std::string, std::string> env;
  // Variables the job takes from the submitter's environment, values never stored (the
  // study's `env_passthrough`: tokens and keys).
  std::vector<std::string> env_passthrough;
  std::string profile = "none";  // a file in profiles/, without extension
  RunSystem system;
};

}  // namespace scalestudy
