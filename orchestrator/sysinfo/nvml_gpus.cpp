// NVML declarations are written out here rather than included: nvml.h ships with the CUDA
// toolkit, which a login node building the CLI need not have. The layouts follow the
// NVML API (nvmlPciInfo_t as used by the *_v3 / *_v2 functions).
#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "orchestrator/sysinfo/gpu_inventory.hpp"

namespace scalestudy::sysinfo {
namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr unsigned kNvlinkMaxLinks = 18;
constexpr int kNvmlFeatureEnabled = 1;

struct nvmlPciInfo_t {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};

// The functions used, resolved from the library; optional ones may be null.
struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*cuda_driver_version)(int*) = nullptr;
  nvmlReturn_t (*device_count)(unsigned*) = nullptr;
  nvmlReturn_t (*device_by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*pci_info)(nvmlDevice_t, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*compute_capability)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*max_pcie_generation)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*max_pcie_width)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*power_limit_mw)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*common_ancestor)(nvmlDevice_t, nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*nvlink_remote_pci)(nvmlDevice_t, unsigned, nvmlPciInfo_t*) = nullptr;
};

template <typename Function>
void resolve(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
}

NvmlApi resolve_api(void* library) {
  NvmlApi api;
  resolve(library, "nvmlInit_v2", api.init);
  resolve(library, "nvmlShutdown", api.shutdown);
  resolve(library, "nvmlErrorString", api.error_string);
  resolve(library, "nvmlSystemGetDriverVersion", api.driver_version);
  resolve(library, "nvmlSystemGetCudaDriverVersion", api.cuda_driver_version);
  resolve(library, "nvmlDeviceGetCount_v2", api.device_count);
  resolve(library, "nvmlDeviceGetHandleByIndex_v2", api.device_by_index);
  resolve(library, "nvmlDeviceGetName", api.name);
  resolve(library, "nvmlDeviceGetMemoryInfo", api.memory);
  resolve(library, "nvmlDeviceGetPciInfo_v3", api.pci_info);
  resolve(library, "nvmlDeviceGetCudaComputeCapability", api.compute_capability);
  resolve(library, "nvmlDeviceGetMaxPcieLinkGeneration", api.max_pcie_generation);
  resolve(library, "nvmlDeviceGetMaxPcieLinkWidth", api.max_pcie_width);
  resolve(library, "nvmlDeviceGetPowerManagementLimit", api.power_limit_mw);
  resolve(library, "nvmlDeviceGetMigMode", api.mig_mode);
  resolve(library, "nvmlDeviceGetTopologyCommonAncestor", api.common_ancestor);
  resolve(library, "nvmlDeviceGetNvLinkState", api.nvlink_state);
  resolve(library, "nvmlDeviceGetNvLinkRemotePciInfo_v2", api.nvlink_remote_pci);
  return api;
}

std::string pcie_level_name(int level) {
  switch (level) {
    case 0:
      return "BRD";  // NVML_TOPOLOGY_INTERNAL: two GPUs on one board
    case 10:
      return "PIX";  // NVML_TOPOLOGY_SINGLE: one PCIe switch
    case 20:
      return "PXB";  // NVML_TOPOLOGY_MULTIPLE: several PCIe switches
    case 30:
      return "PHB";  // NVML_TOPOLOGY_HOSTBRIDGE
    case 40:
      return "NODE";  // NVML_TOPOLOGY_NODE: host bridges of one NUMA node
    case 50:
      return "SYS";  // NVML_TOPOLOGY_SYSTEM: across the CPU interconnect
    default:
      return "";
  }
}

using PciAddress = std::tuple<unsigned, unsigned, unsigned>;

// NVLink counts between GPU pairs: links whose remote end is another GPU count for that
// pair; links to an NVSwitch connect every pair of switch-attached GPUs.
std::vector<std::vector<int>> nvlink_counts(const NvmlApi& api,
                                            const std::vector<nvmlDevice_t>& handles,
                                            const std::vector<PciAddress>& addresses) {
  size_t count = handles.size();
  std::vector<std::vector<int>> direct(count, std::vector<int>(count, 0));
  std::vector<int> to_switch(count, 0);
  if (!api.nvlink_state || !api.nvlink_remote_pci) return direct;
  std::map<PciAddress, size_t> index_of;
  for (size_t i = 0; i < count; ++i) index_of[addresses[i]] = i;
  for (size_t i = 0; i < count; ++i) {
    for (unsigned link = 0; link < kNvlinkMaxLinks; ++link) {
      int state = 0;
      nvmlPciInfo_t remote{};
      if (api.nvlink_state(handles[i], link, &state) != kNvmlSuccess) continue;
      if (state != kNvmlFeatureEnabled) continue;
      if (api.nvlink_remote_pci(handles[i], link, &remote) != kNvmlSuccess) continue;
      auto peer = index_of.find({remote.domain, remote.bus, remote.device});
      if (peer == index_of.end()) {
        ++to_switch[i];
      } else {
        ++direct[i][peer->second];
      }
    }
  }
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < count; ++j) {
      if (i != j && direct[i][j] == 0 && to_switch[i] > 0 && to_switch[j] > 0) {
        direct[i][j] = std::min(to_switch[i], to_switch[j]);
      }
    }
  }
  return direct;
}

void read_device(const NvmlApi& api, nvmlDevice_t handle, GpuDevice& device) {
  char text[96] = {};
  if (api.name && api.name(handle, text, sizeof(text)) == kNvmlSuccess) device.name = text;
  nvmlMemory_t memory{};
  if (api.memory && api.memory(handle, &memory) == kNvmlSuccess) device.memory_bytes = memory.total;
  int major = 0, minor = 0;
  if (api.compute_capability && api.compute_capability(handle, &major, &minor) == kNvmlSuccess) {
    device.compute_capability = std::to_string(major) + "." + std::to_string(minor);
  }
  unsigned generation = 0, width = 0;
  if (api.max_pcie_generation && api.max_pcie_width &&
      api.max_pcie_generation(handle, &generation) == kNvmlSuccess &&
      api.max_pcie_width(handle, &width) == kNvmlSuccess) {
    device.pcie_link = "Gen" + std::to_string(generation) + " x" + std::to_string(width);
  }
  unsigned power_mw = 0;
  if (api.power_limit_mw && api.power_limit_mw(handle, &power_mw) == kNvmlSuccess) {
    device.power_limit = std::to_string(power_mw / 1000) + " W";
  }
  unsigned current = 0, pending = 0;
  if (api.mig_mode && api.mig_mode(handle, &current, &pending) == kNvmlSuccess) {
    device.mig_mode = current ? "enabled" : "disabled";
  }
}

}  // namespace

Result<GpuInventory> read_gpus_nvml(const std::string& library_name) {
  std::unique_ptr<void, int (*)(void*)> library(dlopen(library_name.c_str(), RTLD_NOW | RTLD_LOCAL),
                                                dlclose);
  if (!library) {
    const char* why = dlerror();
    return Status::error("cannot load " + library_name + ": " + (why ? why : "unknown error"));
  }
  NvmlApi api = resolve_api(library.get());
  if (!api.init || !api.shutdown || !api.device_count || !api.device_by_index) {
    return Status::error(library_name + " lacks nvmlInit_v2/nvmlDeviceGetCount_v2");
  }
  auto describe = [&](nvmlReturn_t code) {
    return api.error_string ? std::string(api.error_string(code)) : "error " + std::to_string(code);
  };
  if (nvmlReturn_t code = api.init(); code != kNvmlSuccess) {
    return Status::error("nvmlInit_v2 (" + library_name + "): " + describe(code));
  }
  struct ShutdownOnExit {
    const NvmlApi& api;
    ~ShutdownOnExit() { api.shutdown(); }
  } shutdown_on_exit{api};

  GpuInventory inventory;
  inventory.source = "NVML (" + library_name + ")";
  char text[96] = {};
  if (api.driver_version && api.driver_version(text, sizeof(text)) == kNvmlSuccess) {
    inventory.driver_version = text;
  }
  int cuda_version = 0;
  if (api.cuda_driver_version && api.cuda_driver_version(&cuda_version) == kNvmlSuccess) {
    inventory.cuda_driver_version =
        std::to_string(cuda_version / 1000) + "." + std::to_string(cuda_version % 1000 / 10);
  }
  unsigned count = 0;
  if (nvmlReturn_t code = api.device_count(&count); code != kNvmlSuccess) {
    return Status::error("nvmlDeviceGetCount_v2: " + describe(code));
  }
  std::vector<nvmlDevice_t> handles;
  std::vector<PciAddress> addresses;
  for (unsigned index = 0; index < count; ++index) {
    nvmlDevice_t handle = nullptr;
    if (nvmlReturn_t code = api.device_by_index(index, &handle); code != kNvmlSuccess) {
      return Status::error("nvmlDeviceGetHandleByIndex_v2(" + std::to_string(index) +
                           "): " + describe(code));
    }
    GpuDevice device;
    read_device(api, handle, device);
    nvmlPciInfo_t pci{};
    if (api.pci_info && api.pci_info(handle, &pci) == kNvmlSuccess) device.pci_bus_id = pci.bus_id;
    handles.push_back(handle);
    addresses.emplace_back(pci.domain, pci.bus, pci.device);
    inventory.devices.push_back(std::move(device));
  }

  auto nvlinks = nvlink_counts(api, handles, addresses);
  inventory.links.assign(count, std::vector<std::string>(count));
  for (unsigned i = 0; i < count; ++i) {
    for (unsigned j = 0; j < count; ++j) {
      int level = -1;
      if (i == j) {
        inventory.links[i][j] = "X";
      } else if (nvlinks[i][j] > 0) {
        inventory.links[i][j] = "NV" + std::to_string(nvlinks[i][j]);
      } else if (api.common_ancestor &&
                 api.common_ancestor(handles[i], handles[j], &level) == kNvmlSuccess) {
        inventory.links[i][j] = pcie_level_name(level);
      }
    }
  }
  return inventory;
}

}  // namespace scalestudy::sysinfo
