#include "orchestrator/submission/results_folder_check.hpp"

#include <sys/vfs.h>

#include <filesystem>

#include "orchestrator/sysinfo/filesystem_type.hpp"

namespace scalestudy::submission {

std::optional<std::string> node_local_results_warning(const std::string& results_dir,
                                                      const std::string& filesystem,
                                                      int widest_nodes) {
  if (widest_nodes < 2 || sysinfo::is_shared_filesystem(filesystem)) return std::nullopt;
  const std::string what =
      filesystem == "tmpfs" ? "tmpfs, this host's memory" : filesystem + ", a disk of this host";
  return "results folder " + results_dir + " is on " + what + ": runs spanning " +
         std::to_string(widest_nodes) +
         " nodes write their rank databases and logs on every node, and the other nodes' "
         "files would stay on those nodes (unless every node is this host); choose a folder "
         "on a filesystem the nodes share (NFS, Lustre, GPFS, BeeGFS, CephFS) with "
         "--results-dir";
}

std::optional<std::string> results_folder_warning(const std::string& results_dir,
                                                  int widest_nodes) {
  if (widest_nodes < 2) return std::nullopt;
  std::error_code error;
  std::filesystem::path folder = std::filesystem::absolute(results_dir, error);
  while (!folder.empty() && !std::filesystem::exists(folder, error)) {
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
  struct statfs info {};
  if (statfs(folder.c_str(), &info) != 0) return std::nullopt;
  return node_local_results_warning(
      results_dir, sysinfo::filesystem_name(static_cast<unsigned long long>(info.f_type)),
      widest_nodes);
}

}  // namespace scalestudy::submission
