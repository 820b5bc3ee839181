#include "orchestrator/sysinfo/debian_packages.hpp"

#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {

std::string debian_package_version(const Probe& probe, const std::string& package) {
  for (const auto& block :
       parse_colon_blocks(probe.read_file("/var/lib/dpkg/status").value_or(""))) {
    auto name = block.find("Package");
    auto status = block.find("Status");
    auto version = block.find("Version");
    if (name != block.end() && name->second == package && status != block.end() &&
        status->second == "install ok installed" && version != block.end()) {
      return version->second;
    }
  }
  return "";
}

}  // namespace scalestudy::sysinfo
