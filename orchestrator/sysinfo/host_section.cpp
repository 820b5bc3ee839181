#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

// Used only when the kernel predates /proc/sys/kernel/arch (Linux 6.1).
const char* build_target_architecture() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__powerpc64__)
  return "ppc64le";
#else
  return "";
#endif
}

}  // namespace

Section probe_host(const Probe& probe) {
  Section section;
  section.title = "Host";
  section.add("hostname", "Hostname", probe.read_line("/proc/sys/kernel/hostname").value_or(""),
              "/proc/sys/kernel/hostname");

  auto os_release = probe.read_file("/etc/os-release");
  auto os_fields = parse_env_file(os_release.value_or(""));
  std::string os = os_fields.count("PRETTY_NAME") ? os_fields["PRETTY_NAME"] : os_fields["NAME"];
  section.add("os", "OS", os, "/etc/os-release");

  std::string kernel = probe.read_line("/proc/sys/kernel/ostype").value_or("");
  std::string release = probe.read_line("/proc/sys/kernel/osrelease").value_or("");
  section.add("kernel", "Kernel", trim(kernel + " " + release),
              "/proc/sys/kernel/{ostype,osrelease}");

  if (auto arch = probe.read_line("/proc/sys/kernel/arch")) {
    section.add("arch", "Architecture", *arch, "/proc/sys/kernel/arch");
  } else {
    section.add("arch", "Architecture", build_target_architecture(), "build target");
  }
  if (auto virtualization = probe.read_line("/sys/class/dmi/id/product_name")) {
    section.add("machine", "Machine", *virtualization, "/sys/class/dmi/id/product_name");
  }
  return section;
}

}  // namespace scalestudy::sysinfo
