// The whole-machine inventory: every section, in SYSTEM.md order, and the flat key/value
// facts the run database stores as provenance (keys in docs/run-database.md: hostname,
// cpu_model, cpu_cores, gpu_model, gpu_count, driver_version, cuda_version, cudnn_version,
// nccl_version, libtorch_version, compiler ...). Torch-free, so the harness can call it
// too. Stateless; safe to call from several threads with their own Probe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "orchestrator/sysinfo/probe.hpp"
#include "orchestrator/sysinfo/section.hpp"

namespace scalestudy::sysinfo {

struct SysinfoOptions {
  std::string results_dir = "results";
  std::string data_root;      // measured too when set
  bool include_slurm = true;  // partitions and QOS: asks slurmctld/slurmdbd
  bool include_compilers = true;
};

std::vector<Section> probe_system(const Probe& probe, const SysinfoOptions& options);

// The facts of this machine for one run: every section but the SLURM cluster inventory
// (each rank would otherwise query slurmctld; runs record their SLURM job from the
// environment). The results dir measured is ./results.
std::map<std::string, std::string> collect_system_facts();
std::map<std::string, std::string> collect_system_facts(const Probe& probe,
                                                        const SysinfoOptions& options);

}  // namespace scalestudy::sysinfo
