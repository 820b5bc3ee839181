#include <doctest/doctest.h>

#include "orchestrator/sysinfo/sections.hpp"
#include "tests/sysinfo/fake_root.hpp"

namespace scalestudy::sysinfo {
namespace {

using testing::fact;
using testing::FakeRoot;

// Two sockets of two cores with two hardware threads each: cpu0-3 on package 0.
void write_two_socket_machine(const FakeRoot& root) {
  std::string cpuinfo;
  for (int cpu = 0; cpu < 8; ++cpu) {
    int package = cpu / 4, core = cpu % 2;
    cpuinfo += "processor\t: " + std::to_string(cpu) +
               "\nmodel name\t: Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz\n"
               "physical id\t: " +
               std::to_string(package) + "\ncore id\t\t: " + std::to_string(core) +
               "\nflags\t\t: fpu sse avx2 fma avx512f\n\n";
    std::string topology = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    root.write(topology + "physical_package_id", std::to_string(package) + "\n");
    root.write(topology + "core_id", std::to_string(core) + "\n");
  }
  root.write("/proc/cpuinfo", cpuinfo);
  root.write("/sys/devices/system/cpu/online", "0-7\n");
  root.write("/sys/devices/system/node/node0/cpulist", "0-3\n");
  root.write("/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       4194304 kB\n");
  root.write("/sys/devices/system/node/node1/cpulist", "4-7\n");
  root.write("/sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       4194304 kB\n");
  root.write("/sys/devices/system/node/online", "0-1\n");
  root.write("/sys/devices/system/cpu/cpu0/cache/index0/level", "1\n");
  root.write("/sys/devices/system/cpu/cpu0/cache/index0/size", "48K\n");
  root.write("/sys/devices/system/cpu/cpu0/cache/index3/level", "3\n");
  root.write("/sys/devices/system/cpu/cpu0/cache/index3/size", "36864K\n");
  root.write("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3600000\n");
  root.write("/proc/self/status", "Name:\tscalestudy\nCpus_allowed_list:\t0-3,6\n");
}

TEST_CASE("a two-socket machine is counted from sysfs topology") {
  FakeRoot root;
  write_two_socket_machine(root);
  Section cpu = probe_cpu(root.probe());
  CHECK(fact(cpu, "cpu_model") == "Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz");
  CHECK(fact(cpu, "cpu_sockets") == "2");
  CHECK(fact(cpu, "cpu_cores") == "4");
  CHECK(fact(cpu, "cpu_cores_per_socket") == "2");
  CHECK(fact(cpu, "cpu_threads") == "8");
  CHECK(fact(cpu, "cpu_smt") == "on");
  CHECK(fact(cpu, "cpus_allowed") == "5");
  CHECK(fact(cpu, "numa_nodes") == "2");
  CHECK(fact(cpu, "cpu_last_level_cache") == "L3 36864K");
  CHECK(fact(cpu, "cpu_max_mhz") == "3600");
  CHECK(fact(cpu, "cpu_flags") == "avx2 fma avx512f");
  // avx512f without BW, VL and DQ: the kernels still take their AVX2 paths.
  CHECK(fact(cpu, "cpu_isa") == "avx2");
  REQUIRE(cpu.tables.size() == 1);
  CHECK(cpu.tables[0].rows[1] == std::vector<std::string>{"1", "4-7", "4.0 GiB"});
  CHECK(testing::find_fact(cpu, "cpu_sockets")->source.find("/sys/devices/system/cpu") == 0);
}

TEST_CASE("without sysfs the topology comes from /proc/cpuinfo ids") {
  FakeRoot root;
  std::string cpuinfo;
  for (int cpu = 0; cpu < 4; ++cpu) {
    cpuinfo += "processor\t: " + std::to_string(cpu) + "\nmodel name\t: AMD EPYC 7763\n" +
               "physical id\t: " + std::to_string(cpu / 2) +
               "\ncore id\t\t: " + std::to_string(cpu % 2) + "\n\n";
  }
  root.write("/proc/cpuinfo", cpuinfo);
  Section cpu = probe_cpu(root.probe());
  CHECK(fact(cpu, "cpu_sockets") == "2");
  CHECK(fact(cpu, "cpu_cores") == "4");
  CHECK(fact(cpu, "cpu_threads") == "4");
  CHECK(fact(cpu, "cpu_smt") == "off");
  CHECK(fact(cpu, "cpu_isa") == "baseline");
  CHECK(testing::find_fact(cpu, "cpu_cores")->source == "/proc/cpuinfo (physical id, core id)");
}

TEST_CASE("meminfo and the cgroup v2 memory limit of the job") {
  FakeRoot root;
  root.write("/proc/meminfo",
             "MemTotal:       1056496000 kB\nMemFree:        1000000 kB\n"
             "MemAvailable:   1000000000 kB\nSwapTotal:             0 kB\n"
             "HugePages_Total:      16\nHugepagesize:       2048 kB\n");
  root.write("/proc/self/cgroup", "0::/system.slice/slurmstepd.scope/job_42\n");
  root.write("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42/memory.max", "214748364800\n");
  Section memory = probe_memory(root.probe());
  CHECK(fact(memory, "memory_total_bytes") == std::to_string(1056496000ULL * 1024));
  CHECK(fact(memory, "memory_available_bytes") == std::to_string(1000000000ULL * 1024));
  CHECK(fact(memory, "swap_total_bytes") == "0");
  CHECK(fact(memory, "huge_pages") == "16 x 2048 kB");
  CHECK(fact(memory, "cgroup_memory_limit_bytes") == "214748364800");
  CHECK(testing::find_fact(memory, "cgroup_memory_limit_bytes")->display == "200.0 GiB");
}

TEST_CASE("an unlimited cgroup v1 memory limit is not reported") {
  FakeRoot root;
  root.write("/proc/meminfo", "MemTotal:       1024 kB\n");
  root.write("/proc/self/cgroup", "4:memory:/user\n0::/\n");
  root.write("/sys/fs/cgroup/memory/user/memory.limit_in_bytes", "9223372036854771712\n");
  Section memory = probe_memory(root.probe());
  CHECK(fact(memory, "memory_total_bytes") == "1048576");
  CHECK(fact(memory, "cgroup_memory_limit_bytes") == "<absent>");
}

TEST_CASE("host facts come from os-release and /proc/sys/kernel") {
  FakeRoot root;
  root.write("/etc/os-release",
             "NAME=\"Rocky Linux\"\nPRETTY_NAME=\"Rocky Linux 8.9 (Green Obsidian)\"\n");
  root.write("/proc/sys/kernel/hostname", "gpu-node-17\n");
  root.write("/proc/sys/kernel/ostype", "Linux\n");
  root.write("/proc/sys/kernel/osrelease", "4.18.0-513.el8.x86_64\n");
  root.write("/proc/sys/kernel/arch", "x86_64\n");
  Section host = probe_host(root.probe());
  CHECK(fact(host, "hostname") == "gpu-node-17");
  CHECK(fact(host, "os") == "Rocky Linux 8.9 (Green Obsidian)");
  CHECK(fact(host, "kernel") == "Linux 4.18.0-513.el8.x86_64");
  CHECK(fact(host, "arch") == "x86_64");
}

}  // namespace
}  // namespace scalestudy::sysinfo
