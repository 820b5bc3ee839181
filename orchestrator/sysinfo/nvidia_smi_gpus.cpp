#include <sstream>

#include "orchestrator/sysinfo/gpu_inventory.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

// "CUDA Version: 12.4" from the banner of plain `nvidia-smi`.
std::string banner_cuda_version(const Probe& probe) {
  auto banner = probe.run({"nvidia-smi"});
  if (!banner || !banner->succeeded()) return "";
  const std::string marker = "CUDA Version:";
  auto at = banner->stdout_text.find(marker);
  if (at == std::string::npos) return "";
  std::istringstream rest(banner->stdout_text.substr(at + marker.size()));
  std::string version;
  rest >> version;
  return version;
}

// The GPU-to-GPU block of `nvidia-smi topo -m`: a header of GPU<i> (then NIC<i>, "CPU
// Affinity" ...) columns and one row per GPU.
std::vector<std::vector<std::string>> topology_links(const Probe& probe, size_t gpu_count) {
  std::vector<std::vector<std::string>> links;
  auto topology = probe.run({"nvidia-smi", "topo", "-m"});
  if (!topology || !topology->succeeded()) return links;
  for (const auto& line : split_lines(topology->stdout_text)) {
    if (!starts_with(line, "GPU")) continue;  // the header line starts with blanks
    std::istringstream words(line);
    std::string row_name;
    words >> row_name;
    if (!starts_with(row_name, "GPU") || row_name.size() == 3) continue;
    std::vector<std::string> row;
    for (std::string word; row.size() < gpu_count && words >> word;) row.push_back(word);
    if (row.size() == gpu_count) links.push_back(std::move(row));
  }
  if (links.size() != gpu_count) links.clear();
  return links;
}

}  // namespace

Result<GpuInventory> read_gpus_nvidia_smi(const Probe& probe) {
  auto query = probe.run({"nvidia-smi", "--query-gpu=name,memory.total,pci.bus_id,driver_version",
                          "--format=csv,noheader,nounits"});
  if (!query) return query.status();
  if (!query->succeeded()) {
    return Status::error("nvidia-smi failed: " +
                         first_line(query->stderr_text + query->stdout_text));
  }
  GpuInventory inventory;
  inventory.source = "nvidia-smi";
  for (const auto& line : split_lines(query->stdout_text)) {
    auto fields = split(line, ',');
    if (fields.size() < 4) continue;
    GpuDevice device;
    device.name = trim(fields[0]);
    device.memory_bytes = leading_number(fields[1]).value_or(0) * 1024ULL * 1024ULL;  // MiB
    device.pci_bus_id = trim(fields[2]);
    inventory.driver_version = trim(fields[3]);
    inventory.devices.push_back(std::move(device));
  }
  inventory.cuda_driver_version = banner_cuda_version(probe);
  inventory.links = topology_links(probe, inventory.devices.size());
  return inventory;
}

}  // namespace scalestudy::sysinfo
