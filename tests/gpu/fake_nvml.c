/* A stand-in libnvidia-ml for the NVML tests: the NVML entry points the reader resolves, for
   device index 0 and bus id "0000:3B:00.0" only. Scripted so a run's figures are known
   exactly: the energy counter rises by FAKE_NVML_ENERGY_STEP_MJ at each read, and from
   the second read on (the end of the first measured window) the GPU is throttled: the SM
   clock falls from 1980 to 1410 MHz with hw thermal slowdown, and power rises from 312.5 to
   350 W. Built twice: with the pre-535 name of the clock-event reasons, and with
   FAKE_NVML_CURRENT_NAMES the current one. */
#include <string.h>

#define FAKE_NVML_ENERGY_STEP_MJ 90000ull
/* Read by the sampler thread while the training thread reads the counter. */
static unsigned long long energy_reads;
static int throttled(void) {
  return __atomic_load_n(&energy_reads, __ATOMIC_SEQ_CST) >= 2;
}

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
  *milliwatts = throttled() ? 350000 : 312500;
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* millijoules) {
  *millijoules = 5000000ull +
                 __atomic_add_fetch(&energy_reads, 1, __ATOMIC_SEQ_CST) * FAKE_NVML_ENERGY_STEP_MJ;
  return 0;
}
int nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int* mhz) {
  if (type != 1) return 2; /* NVML_CLOCK_SM only */
  *mhz = throttled() ? 1410 : 1980;
  return 0;
}
static int clock_event_reasons(unsigned long long* reasons) {
  *reasons = throttled() ? 0x40 : 0;
  return 0;
}
#ifdef FAKE_NVML_CURRENT_NAMES
/* The current name only, as a driver without the deprecated one: the reader's first choice. */
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) {
  return clock_event_reasons(reasons);
}
#else
/* The pre-535 name only, so the reader's fallback is what answers. */
int nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long* reasons) {
  return clock_event_reasons(reasons);
}
#endif
/* Not supported on this "device": the reader must leave the temperature empty. */
int nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* celsius) {
  return 3;
}
