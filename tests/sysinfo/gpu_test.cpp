#include <doctest/doctest.h>

#include "orchestrator/sysinfo/gpu_inventory.hpp"
#include "orchestrator/sysinfo/sections.hpp"
#include "tests/sysinfo/fake_root.hpp"

namespace scalestudy::sysinfo {
namespace {

using testing::fact;
using testing::FakeRoot;

Probe probe_with_nvml(const FakeRoot& root, const std::string& library) {
  ProbeOptions options;
  options.root = root.dir();
  options.env["PATH"] = root.bin();
  options.nvml_library = library;
  return Probe(options);
}

TEST_CASE("NVML loaded at run time gives models, memory, driver and NVLink/PCIe topology") {
  FakeRoot root;
  root.write("/sys/bus/pci/devices/0000:3b:00.0/numa_node", "0\n");
  root.write("/sys/bus/pci/devices/0000:3b:00.0/local_cpulist", "0-15\n");
  Section gpus = probe_gpus(probe_with_nvml(root, SCALESTUDY_FAKE_NVML));
  CHECK(fact(gpus, "gpu_count") == "3");
  CHECK(fact(gpus, "gpu_model") == "NVIDIA H100 80GB HBM3");
  CHECK(fact(gpus, "gpu_memory_bytes") == std::to_string(80ULL << 30));
  CHECK(fact(gpus, "driver_version") == "550.54.15");
  CHECK(fact(gpus, "cuda_driver_version") == "12.4");
  CHECK(fact(gpus, "gpu_interconnect") == "NVLink");
  CHECK(fact(gpus, "gpu_source").find("NVML") == 0);

  REQUIRE(gpus.tables.size() == 2);
  const Table& devices = gpus.tables[0];
  REQUIRE(devices.rows.size() == 3);
  CHECK(devices.rows[0] == std::vector<std::string>{"0", "NVIDIA H100 80GB HBM3", "80.0 GiB",
                                                    "00000000:3B:00.0", "0 (CPUs 0-15)", "9.0",
                                                    "Gen5 x16", "700 W", "disabled"});
  CHECK(devices.rows[2][8] == "");  // MIG query unsupported on GPU2
  const Table& matrix = gpus.tables[1];
  CHECK(matrix.rows[0] == std::vector<std::string>{"GPU0", "X", "NV4", "SYS"});
  CHECK(matrix.rows[1] == std::vector<std::string>{"GPU1", "NV4", "X", "NODE"});
  CHECK(matrix.rows[2] == std::vector<std::string>{"GPU2", "SYS", "NODE", "X"});
}

TEST_CASE("without the driver library or nvidia-smi the section says so") {
  FakeRoot root;
  Section gpus = probe_gpus(root.probe());
  CHECK(fact(gpus, "gpu_count") == "0");
  const Fact* count = testing::find_fact(gpus, "gpu_count");
  CHECK(count->display == "none (no NVIDIA driver)");
  CHECK(count->source.find("no-libnvidia-ml.so.1") != std::string::npos);
  CHECK(count->source.find("nvidia-smi not on PATH") != std::string::npos);
  CHECK(gpus.tables.empty());
}

TEST_CASE("nvidia-smi is the fallback when NVML cannot be loaded") {
  FakeRoot root;
  root.command("nvidia-smi", R"(case "$1" in
  --query-gpu=*) printf 'NVIDIA L40S, 46068, 00000000:01:00.0, 550.90.07\nNVIDIA L40S, 46068, 00000000:41:00.0, 550.90.07\n' ;;
  topo) printf '\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\t0-31\t0\nGPU1\tSYS\t X \t32-63\t1\n\nLegend:\n' ;;
  *) printf '| NVIDIA-SMI 550.90.07   Driver Version: 550.90.07   CUDA Version: 12.4 |\n' ;;
esac)");
  Section gpus = probe_gpus(root.probe());
  CHECK(fact(gpus, "gpu_count") == "2");
  CHECK(fact(gpus, "gpu_model") == "NVIDIA L40S");
  CHECK(fact(gpus, "gpu_memory_bytes") == std::to_string(46068ULL << 20));
  CHECK(fact(gpus, "driver_version") == "550.90.07");
  CHECK(fact(gpus, "cuda_driver_version") == "12.4");
  CHECK(fact(gpus, "gpu_interconnect") == "PCIe");
  CHECK(fact(gpus, "gpu_source") == "nvidia-smi");
  REQUIRE(gpus.tables.size() == 2);
  CHECK(gpus.tables[1].rows[0] == std::vector<std::string>{"GPU0", "X", "SYS"});
}

TEST_CASE("a failing nvidia-smi is reported with NVML's reason") {
  FakeRoot root;
  root.command("nvidia-smi",
               "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
               "driver.\" >&2; exit 9");
  Section gpus = probe_gpus(root.probe());
  CHECK(fact(gpus, "gpu_count") == "0");
  CHECK(testing::find_fact(gpus, "gpu_count")->source.find("couldn't communicate") !=
        std::string::npos);
}

}  // namespace
}  // namespace scalestudy::sysinfo
