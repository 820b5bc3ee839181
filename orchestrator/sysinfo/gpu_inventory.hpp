// GpuInventory: the NVIDIA GPUs of this machine and how they are connected, as read from
// NVML (the driver's library, loaded at run time so the CLI needs no CUDA to build or run)
// or, failing that, from nvidia-smi. Plain value types; the readers are stateless.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sysinfo/probe.hpp"

namespace scalestudy::sysinfo {

struct GpuDevice {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  unsigned long long memory_bytes = 0;
  std::string pci_bus_id;          // as the driver prints it: "00000000:3B:00.0"
  std::string compute_capability;  // "9.0"; empty when unknown
  std::string pcie_link;           // "Gen5 x16" (maximum link); empty when unknown
  std::string power_limit;         // "700 W"; empty when unknown
  std::string mig_mode;            // "enabled"/"disabled"; empty when unsupported
};

struct GpuInventory {
  std::string source;  // "NVML (libnvidia-ml.so.1)" or "nvidia-smi"
  std::string driver_version;
  std::string cuda_driver_version;  // the newest CUDA the driver supports: "12.4"
  std::vector<GpuDevice> devices;
  // links[i][j] in nvidia-smi topo -m's legend: "X" (self), "NV<n>" (n NVLinks),
  // "PIX", "PXB", "PHB", "NODE", "SYS"; empty when unknown.
  std::vector<std::vector<std::string>> links;
};

// Loads `library` with dlopen(); an error (naming the library) when it cannot be loaded or
// initialised — the usual case on machines without the NVIDIA driver.
Result<GpuInventory> read_gpus_nvml(const std::string& library);

// nvidia-smi --query-gpu ... and nvidia-smi topo -m, run through the probe.
Result<GpuInventory> read_gpus_nvidia_smi(const Probe& probe);

// "NVLink" when any pair is NVLink-connected, "PCIe" for other multi-GPU machines,
// empty for one GPU or an unknown topology.
std::string interconnect_summary(const GpuInventory& inventory);

}  // namespace scalestudy::sysinfo
