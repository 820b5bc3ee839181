#include <set>

#include "harness/core/ascii_case.hpp"
#include "orchestrator/common/human_bytes.hpp"
#include "orchestrator/sysinfo/gpu_inventory.hpp"
#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

// sysfs names PCI devices "0000:3b:00.0"; drivers print "00000000:3B:00.0".
std::string sysfs_pci_address(const std::string& bus_id) {
  auto colon = bus_id.find(':');
  if (colon == std::string::npos || colon < 4) return "";
  return ascii_lowercase(bus_id.substr(colon - 4));
}

// "0 (CPUs 0-15)": which NUMA node (and CPUs) a GPU hangs off, for binding ranks.
std::string numa_affinity(const Probe& probe, const std::string& bus_id) {
  std::string address = sysfs_pci_address(bus_id);
  if (address.empty()) return "";
  std::string device_dir = "/sys/bus/pci/devices/" + address;
  std::string node = probe.read_line(device_dir + "/numa_node").value_or("");
  std::string cpus = probe.read_line(device_dir + "/local_cpulist").value_or("");
  if (node.empty() || node == "-1") return cpus.empty() ? "" : "CPUs " + cpus;
  return cpus.empty() ? node : node + " (CPUs " + cpus + ")";
}

std::string model_names(const GpuInventory& inventory) {
  std::set<std::string> names;
  std::string joined;
  for (const auto& device : inventory.devices) {
    if (names.insert(device.name).second) joined += (joined.empty() ? "" : ", ") + device.name;
  }
  return joined;
}

void add_tables(const Probe& probe, const GpuInventory& inventory, Section& section) {
  Table devices{"Devices",
                {"GPU", "Model", "Memory", "PCI bus", "NUMA node", "Compute capability",
                 "PCIe (max)", "Power limit", "MIG"},
                {}};
  for (size_t index = 0; index < inventory.devices.size(); ++index) {
    const GpuDevice& device = inventory.devices[index];
    devices.rows.push_back({std::to_string(index), device.name,
                            common::human_bytes(device.memory_bytes), device.pci_bus_id,
                            numa_affinity(probe, device.pci_bus_id), device.compute_capability,
                            device.pcie_link, device.power_limit, device.mig_mode});
  }
  section.tables.push_back(std::move(devices));
  if (inventory.links.size() < 2) return;
  Table matrix{"Interconnect (GPU to GPU)", {""}, {}};
  for (size_t index = 0; index < inventory.links.size(); ++index) {
    matrix.header.push_back("GPU" + std::to_string(index));
    std::vector<std::string> row{"GPU" + std::to_string(index)};
    for (const auto& link : inventory.links[index]) row.push_back(link.empty() ? "?" : link);
    matrix.rows.push_back(std::move(row));
  }
  section.tables.push_back(std::move(matrix));
  section.notes.push_back(
      "Legend (as `nvidia-smi topo -m`): NV<n> = n NVLinks; PIX = one PCIe switch; "
      "PXB = several PCIe switches; PHB = a PCIe host bridge; NODE = host bridges within one "
      "NUMA node; SYS = across the CPU interconnect (slowest); BRD = same board.");
}

}  // namespace

std::string interconnect_summary(const GpuInventory& inventory) {
  if (inventory.devices.size() < 2 || inventory.links.empty()) return "";
  bool any_known = false;
  for (const auto& row : inventory.links) {
    for (const auto& link : row) {
      if (link.compare(0, 2, "NV") == 0) return "NVLink";
      if (!link.empty() && link != "X") any_known = true;
    }
  }
  return any_known ? "PCIe" : "";
}

Section probe_gpus(const Probe& probe) {
  Section section;
  section.title = "GPUs";
  auto inventory = read_gpus_nvml(probe.nvml_library());
  std::string why_not;
  if (!inventory) {
    why_not = inventory.status().message();
    if (probe.find_program("nvidia-smi")) {
      inventory = read_gpus_nvidia_smi(probe);
      if (!inventory) why_not += "; " + inventory.status().message();
    } else {
      why_not += "; nvidia-smi not on PATH";
    }
  }
  if (!inventory) {
    section.add("gpu_count", "GPUs", "0", why_not);
    section.facts.back().display = "none (no NVIDIA driver)";
    return section;
  }
  const GpuInventory& gpus = *inventory;
  section.add("gpu_count", "Count", std::to_string(gpus.devices.size()), gpus.source);
  section.add("gpu_model", "Model", model_names(gpus), gpus.source);
  if (!gpus.devices.empty()) {
    section.add_bytes("gpu_memory_bytes", "Memory per GPU", gpus.devices.front().memory_bytes,
                      gpus.source);
  }
  section.add("driver_version", "Driver", gpus.driver_version, gpus.source);
  section.add("cuda_driver_version", "CUDA version supported by the driver",
              gpus.cuda_driver_version, gpus.source);
  section.add("gpu_interconnect", "GPU interconnect", interconnect_summary(gpus),
              gpus.source + " topology");
  section.add("gpu_source", "Read with", gpus.source, "");
  add_tables(probe, gpus, section);
  return section;
}

}  // namespace scalestudy::sysinfo
