// Provenance of a run: what was built (build_info), with which libraries, on which host,
// under which SLURM job and environment — the `provenance` table's keys of
// docs/run-database.md. GPU keys (cuda_version, gpu_model, ...) come from the GPU build.
// Reads /proc and the passed environment; thread-safe.
#pragma once

#include <map>
#include <string>

namespace scalestudy::record {

using ProvenanceEntries = std::map<std::string, std::string>;

// `environment` is the process environment (dist::process_environment()); every
// NCCL_*, GLOO_*, OMP_*, GOMP_*, OPENBLAS_*, CUDA_*, TORCH_*, ATEN_*, ONEDNN_*, DNNL_*
// variable becomes "env.<NAME>".
ProvenanceEntries collect_provenance(const std::map<std::string, std::string>& environment);

std::string host_name();
// The "model name" line of /proc/cpuinfo; "unknown" when absent.
std::string cpu_model();
// The vector ISA level /proc/cpuinfo's flags provide (cpu_isa_level()); ATEN_CPU_CAPABILITY
// and ONEDNN_MAX_CPU_ISA, which can hold kernels below it, are recorded as env.* beside it.
std::string cpu_isa();

}  // namespace scalestudy::record
