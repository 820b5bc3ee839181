// Before runs that span nodes are submitted to a cluster: is the results folder where every
// node can write it? A folder on a filesystem local to this host (tmpfs, a local disk) is
// another folder of the same name on each node: the ranks there write their databases and
// logs into it, and they never come back here. Warned, not refused (a cluster whose nodes
// are all this host, as the test cluster's, is fine). Functions.
#pragma once

#include <optional>
#include <string>

namespace scalestudy::submission {

// The warning for `results_dir` on the filesystem named `filesystem` (sysinfo's names:
// "tmpfs", "ext2/ext3/ext4", "nfs" ...) when runs span up to `widest_nodes` nodes; nothing
// for a shared filesystem or runs of one node.
std::optional<std::string> node_local_results_warning(const std::string& results_dir,
                                                      const std::string& filesystem,
                                                      int widest_nodes);

// The same for the folder as it is (statfs of it, or of its nearest existing parent).
std::optional<std::string> results_folder_warning(const std::string& results_dir, int widest_nodes);

}  // namespace scalestudy::submission
