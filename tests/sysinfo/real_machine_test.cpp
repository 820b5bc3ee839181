// sysinfo on the machine running the tests: whatever it is, the report must agree with
// what the kernel says directly.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "orchestrator/sysinfo/markdown.hpp"
#include "orchestrator/sysinfo/system_report.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

std::string cpuinfo_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (starts_with(line, "model name")) return trim(line.substr(line.find(':') + 1));
  }
  return "";
}

TEST_CASE("this machine: the CPU model from /proc/cpuinfo and the CPU count from sysconf") {
  SysinfoOptions options;
  options.results_dir = ".";
  auto sections = probe_system(Probe::local(), options);
  std::string markdown = render_system_markdown(sections, "now", "");
  std::string model = cpuinfo_model();
  if (!model.empty()) CHECK(markdown.find("| Model | " + model + " |") != std::string::npos);
  std::string online = std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
  CHECK(markdown.find("| Logical CPUs (threads) | " + online + " |") != std::string::npos);
  for (const char* title : {"## Host", "## CPU", "## Memory", "## GPUs", "## Software",
                            "## Storage", "## Network", "## SLURM", "## Human notes"}) {
    CHECK_MESSAGE(markdown.find(title) != std::string::npos, title);
  }
  char hostname[256] = {};
  gethostname(hostname, sizeof(hostname) - 1);
  CHECK(markdown.find("| Hostname | " + std::string(hostname) + " |") != std::string::npos);
}

TEST_CASE("collect_system_facts() gives the provenance keys of the run database") {
  auto facts = collect_system_facts();
  for (const char* key : {"hostname", "cpu_model", "cpu_cores", "cpu_threads", "gpu_count",
                          "memory_total_bytes", "results_dir_fs_type"}) {
    CHECK_MESSAGE(facts.count(key) == 1, key);
  }
  CHECK(facts.count("slurm_status") == 0);  // run-level facts leave the cluster inventory out
  CHECK(facts["cpu_threads"] == std::to_string(sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace
}  // namespace scalestudy::sysinfo
