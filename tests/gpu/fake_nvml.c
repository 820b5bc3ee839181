/* A stand-in libnvidia-ml for nvml_reader_test: the NVML entry points the reader resolves,
   answering fixed readings for device index 0 and bus id "0000:3B:00.0" only. */
#include <string.h>

typedef void* nvmlDevice_t;
typedef struct {
  unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

static int the_device;

int nvmlInit_v2(void) {
  return 0;
}
int nvmlShutdown(void) {
  return 0;
}
const char* nvmlErrorString(int code) {
  return code == 6 ? "Not Found" : "Unknown Error";
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (index != 0) return 6;
  *device = &the_device;
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvmlDevice_t* device) {
  if (strcmp(bus_id, "0000:3B:00.0") != 0) return 6;
  *device = &the_device;
  return 0;
}
int nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* rates) {
  rates->gpu = 87;
  rates->memory = 40;
  return 0;
}
int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  memory->total = 80ull << 30;
  memory->used = 3ull << 30;
  memory->free = memory->total - memory->used;
  return 0;
}
int nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* milliwatts) {
  *milliwatts = 312500;
  return 0;
}
/* Not supported on this "device": the reader must leave the temperature empty. */
int nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* celsius) {
  return 3;
}
