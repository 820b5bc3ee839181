// One function per part of the machine, each in its own <name>_section.cpp. Each reads
// only through the Probe, never fails (what it cannot find it reports as not found, with
// where it looked) and returns quickly; only the GPU, compiler, software and SLURM
// sections run commands.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/sysinfo/probe.hpp"
#include "orchestrator/sysinfo/section.hpp"

namespace scalestudy::sysinfo {

Section probe_host(const Probe& probe);       // hostname, OS, kernel, architecture
Section probe_cpu(const Probe& probe);        // model, sockets, cores, threads, NUMA, caches
Section probe_memory(const Probe& probe);     // RAM, swap, huge pages, cgroup limit
Section probe_gpus(const Probe& probe);       // NVML, else nvidia-smi, else "no NVIDIA driver"
Section probe_software(const Probe& probe);   // CUDA runtime, cuDNN, NCCL, LibTorch versions
Section probe_compilers(const Probe& probe);  // c++, gcc, clang, nvcc, mpicc, cmake
Section probe_network(const Probe& probe);    // interfaces, InfiniBand, NCCL_* hints
Section probe_slurm(const Probe& probe);      // version, partitions, QOS limits
struct StoragePath {
  std::string role;   // fact key prefix: "results_dir", "data_root"
  std::string label;  // "Results directory"
  std::string path;   // need not exist yet: its nearest existing parent is measured
};
// Filesystem type, mount point and free space of each path.
Section probe_storage(const Probe& probe, const std::vector<StoragePath>& paths);

}  // namespace scalestudy::sysinfo
