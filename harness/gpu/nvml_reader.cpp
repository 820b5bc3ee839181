#include "harness/gpu/nvml_reader.hpp"

#include <dlfcn.h>

namespace scalestudy::gpu {

// The few NVML types used, declared here so no build needs nvml.h; their layout is part
// of NVML's stable C ABI. Not in an anonymous namespace: NvmlReader::Api, which has
// external linkage, holds functions taking them.
using NvmlReturn = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using NvmlDevice = void*;
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr int kNvmlTemperatureGpu = 0;
constexpr int kNvmlClockSm = 1;
constexpr NvmlReturn kNvmlSuccess = 0;

struct NvmlReader::Api {
  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  const char* (*error_string)(NvmlReturn);
  NvmlReturn (*handle_by_index)(unsigned int, NvmlDevice*);
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*);
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*);
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*);
  NvmlReturn (*power_mw)(NvmlDevice, unsigned int*);
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*);
  // Optional: null where the library lacks them.
  NvmlReturn (*clock_mhz)(NvmlDevice, int, unsigned int*);
  NvmlReturn (*clock_events)(NvmlDevice, unsigned long long*);
  NvmlReturn (*energy_mj)(NvmlDevice, unsigned long long*);
};

namespace {

template <typename Function>
bool resolve(void* handle, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(handle, name));
  return function != nullptr;
}

Status unavailable(const std::string& reason) {
  return Status::error("NVML unavailable: " + reason);
}

}  // namespace

Result<std::unique_ptr<NvmlReader>> NvmlReader::open(const NvmlOptions& options) {
  void* handle = dlopen(options.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return unavailable(error != nullptr ? error : options.library + ": cannot be loaded");
  }
  auto api = std::make_unique<Api>();
  const char* missing = nullptr;
  const std::pair<const char*, bool> symbols[] = {
      {"nvmlInit_v2", resolve(handle, "nvmlInit_v2", api->init)},
      {"nvmlShutdown", resolve(handle, "nvmlShutdown", api->shutdown)},
      {"nvmlErrorString", resolve(handle, "nvmlErrorString", api->error_string)},
      {"nvmlDeviceGetHandleByIndex_v2",
       resolve(handle, "nvmlDeviceGetHandleByIndex_v2", api->handle_by_index)},
      {"nvmlDeviceGetHandleByPciBusId_v2",
       resolve(handle, "nvmlDeviceGetHandleByPciBusId_v2", api->handle_by_pci_bus_id)},
      {"nvmlDeviceGetUtilizationRates",
       resolve(handle, "nvmlDeviceGetUtilizationRates", api->utilization)},
      {"nvmlDeviceGetMemoryInfo", resolve(handle, "nvmlDeviceGetMemoryInfo", api->memory)},
      {"nvmlDeviceGetPowerUsage", resolve(handle, "nvmlDeviceGetPowerUsage", api->power_mw)},
  };
  for (const auto& [name, found] : symbols) {
    if (!found && missing == nullptr) missing = name;
  }
  if (missing != nullptr) {
    dlclose(handle);
    return unavailable(options.library + " lacks " + missing);
  }
  std::string missing_readings;
  auto optional = [&](const char* name, auto& function) {
    if (resolve(handle, name, function)) return true;
    missing_readings += (missing_readings.empty() ? "lacks " : "; lacks ") + std::string(name);
    return false;
  };
  // Deprecated from CUDA 13's NVML, to be removed in 14: its absence costs the temperature.
  optional("nvmlDeviceGetTemperature", api->temperature);
  optional("nvmlDeviceGetClockInfo", api->clock_mhz);
  // Renamed in driver 535; the older name answers the same bits.
  if (!resolve(handle, "nvmlDeviceGetCurrentClocksEventReasons", api->clock_events)) {
    optional("nvmlDeviceGetCurrentClocksThrottleReasons", api->clock_events);
  }
  optional("nvmlDeviceGetTotalEnergyConsumption", api->energy_mj);
  if (NvmlReturn code = api->init(); code != kNvmlSuccess) {
    std::string reason = std::string("nvmlInit_v2: ") + api->error_string(code);
    dlclose(handle);
    return unavailable(reason);
  }
  NvmlDevice device = nullptr;
  const bool by_bus_id = !options.pci_bus_id.empty();
  NvmlReturn code = by_bus_id ? api->handle_by_pci_bus_id(options.pci_bus_id.c_str(), &device)
                              : api->handle_by_index(options.device_index, &device);
  if (code != kNvmlSuccess) {
    std::string which = by_bus_id ? "PCI bus id " + options.pci_bus_id
                                  : "index " + std::to_string(options.device_index);
    std::string reason = "no device with " + which + ": " + api->error_string(code);
    api->shutdown();
    dlclose(handle);
    return unavailable(reason);
  }
  return std::unique_ptr<NvmlReader>(
      new NvmlReader(handle, std::move(api), device, std::move(missing_readings)));
}

NvmlReader::NvmlReader(void* library_handle, std::unique_ptr<Api> api, void* device,
                       std::string missing_readings)
    : library_handle_(library_handle),
      api_(std::move(api)),
      device_(device),
      missing_readings_(std::move(missing_readings)) {}

NvmlReader::~NvmlReader() {
  api_->shutdown();
  dlclose(library_handle_);
}

void NvmlReader::read(metrics::TelemetrySample& sample) const {
  NvmlUtilization utilization{};
  if (api_->utilization(device_, &utilization) == kNvmlSuccess) {
    sample.gpu_util_pct = utilization.gpu;
  }
  NvmlMemory memory{};
  if (api_->memory(device_, &memory) == kNvmlSuccess) {
    sample.gpu_mem_used_bytes = static_cast<int64_t>(memory.used);
  }
  unsigned int power_mw = 0;
  if (api_->power_mw(device_, &power_mw) == kNvmlSuccess) sample.gpu_power_w = power_mw / 1000.0;
  unsigned int temperature_c = 0;
  if (api_->temperature &&
      api_->temperature(device_, kNvmlTemperatureGpu, &temperature_c) == kNvmlSuccess) {
    sample.gpu_temp_c = temperature_c;
  }
  unsigned int clock_mhz = 0;
  if (api_->clock_mhz && api_->clock_mhz(device_, kNvmlClockSm, &clock_mhz) == kNvmlSuccess) {
    sample.gpu_sm_clock_mhz = clock_mhz;
  }
  unsigned long long events = 0;
  if (api_->clock_events && api_->clock_events(device_, &events) == kNvmlSuccess) {
    sample.gpu_clock_events = events;
  }
}

Result<double> NvmlReader::energy_mj() const {
  if (!api_->energy_mj) return Status::error("NVML lacks nvmlDeviceGetTotalEnergyConsumption");
  unsigned long long millijoules = 0;
  if (NvmlReturn code = api_->energy_mj(device_, &millijoules); code != kNvmlSuccess) {
    return Status::error(std::string("nvmlDeviceGetTotalEnergyConsumption: ") +
                         api_->error_string(code));
  }
  return static_cast<double>(millijoules);
}

}  // namespace scalestudy::gpu
