#include "orchestrator/sysinfo/system_report.hpp"

#include "orchestrator/sysinfo/sections.hpp"

namespace scalestudy::sysinfo {

std::vector<Section> probe_system(const Probe& probe, const SysinfoOptions& options) {
  std::vector<Section> sections{probe_host(probe), probe_cpu(probe), probe_memory(probe),
                                probe_gpus(probe), probe_software(probe)};
  if (options.include_compilers) sections.push_back(probe_compilers(probe));
  std::vector<StoragePath> paths{{"results_dir", "Results directory", options.results_dir}};
  if (!options.data_root.empty()) paths.push_back({"data_root", "Data root", options.data_root});
  sections.push_back(probe_storage(probe, paths));
  sections.push_back(probe_network(probe));
  if (options.include_slurm) sections.push_back(probe_slurm(probe));
  return sections;
}

std::map<std::string, std::string> collect_system_facts() {
  SysinfoOptions options;
  options.include_slurm = false;
  return collect_system_facts(Probe::local(), options);
}

std::map<std::string, std::string> collect_system_facts(const Probe& probe,
                                                        const SysinfoOptions& options) {
  return facts_of(probe_system(probe, options));
}

}  // namespace scalestudy::sysinfo
