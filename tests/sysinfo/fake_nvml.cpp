// A stand-in for libnvidia-ml.so.1 with the NVML entry points sysinfo uses: three
// "H100" GPUs, GPU0-GPU1 joined by four NVLinks, GPU2 on the other socket (PCIe only).
// Built as a shared library and dlopen()ed by the tests exactly as the real driver is.
#include <cstdio>
#include <cstring>

namespace {

struct FakeDevice {
  unsigned index;
  unsigned bus;
};
FakeDevice kDevices[3] = {{0, 0x3b}, {1, 0x5e}, {2, 0xd8}};

struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct Memory {
  unsigned long long total, free, used;
};

constexpr int kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3;

void fill_pci(const FakeDevice& device, PciInfo* pci) {
  std::memset(pci, 0, sizeof(*pci));
  pci->bus = device.bus;
  std::snprintf(pci->bus_id, sizeof(pci->bus_id), "00000000:%02X:00.0", device.bus);
}

FakeDevice* as_device(void* handle) {
  return static_cast<FakeDevice*>(handle);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int nvmlInit_v2() {
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlShutdown() {
  return kSuccess;
}
__attribute__((visibility("default"))) const char* nvmlErrorString(int) {
  return "fake error";
}
__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char* text, unsigned size) {
  std::snprintf(text, size, "550.54.15");
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlSystemGetCudaDriverVersion(int* version) {
  *version = 12040;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = 3;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned index,
                                                                         void** handle) {
  if (index >= 3) return kInvalidArgument;
  *handle = &kDevices[index];
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetName(void*, char* text, unsigned size) {
  std::snprintf(text, size, "NVIDIA H100 80GB HBM3");
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMemoryInfo(void*, Memory* memory) {
  memory->total = 80ULL << 30;
  memory->free = memory->total;
  memory->used = 0;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPciInfo_v3(void* handle, PciInfo* pci) {
  fill_pci(*as_device(handle), pci);
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetCudaComputeCapability(void*, int* major,
                                                                              int* minor) {
  *major = 9;
  *minor = 0;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMaxPcieLinkGeneration(
    void*, unsigned* generation) {
  *generation = 5;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMaxPcieLinkWidth(void*, unsigned* width) {
  *width = 16;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetPowerManagementLimit(void*,
                                                                             unsigned* milliwatts) {
  *milliwatts = 700000;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMigMode(void* handle, unsigned* current,
                                                                unsigned* pending) {
  if (as_device(handle)->index == 2) return kNotSupported;
  *current = 0;
  *pending = 0;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetTopologyCommonAncestor(void* first,
                                                                               void* second,
                                                                               int* level) {
  unsigned a = as_device(first)->index, b = as_device(second)->index;
  *level = (a == 2 || b == 2) ? ((a == 0 || b == 0) ? 50 : 40) : 30;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetNvLinkState(void* handle, unsigned link,
                                                                    int* active) {
  if (link >= 18) return kInvalidArgument;
  *active = as_device(handle)->index < 2 && link < 4 ? 1 : 0;
  return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetNvLinkRemotePciInfo_v2(void* handle,
                                                                               unsigned link,
                                                                               PciInfo* pci) {
  unsigned index = as_device(handle)->index;
  if (index >= 2 || link >= 4) return kNotSupported;
  fill_pci(kDevices[1 - index], pci);
  return kSuccess;
}

}  // extern "C"
