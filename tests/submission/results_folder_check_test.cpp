// Runs spanning nodes need a results folder the nodes share: one on tmpfs or a local disk
// is warned about, with the reason; a shared one, or runs of one node, are not.
#include "orchestrator/submission/results_folder_check.hpp"

#include <doctest/doctest.h>

using scalestudy::submission::node_local_results_warning;
using scalestudy::submission::results_folder_warning;

TEST_CASE("a results folder on a node-local filesystem is warned about for multi-node runs") {
  auto tmpfs = node_local_results_warning("/tmp/r", "tmpfs", 2);
  REQUIRE(tmpfs.has_value());
  CHECK(tmpfs->find("results folder /tmp/r is on tmpfs, this host's memory: runs spanning 2 "
                    "nodes") != std::string::npos);
  CHECK(tmpfs->find("--results-dir") != std::string::npos);
  auto disk = node_local_results_warning("/scratch/r", "ext2/ext3/ext4", 4);
  REQUIRE(disk.has_value());
  CHECK(disk->find("ext2/ext3/ext4, a disk of this host") != std::string::npos);
  CHECK_FALSE(node_local_results_warning("/home/r", "nfs", 4).has_value());
  CHECK_FALSE(node_local_results_warning("/lus/r", "lustre", 8).has_value());
  CHECK_FALSE(node_local_results_warning("/tmp/r", "tmpfs", 1).has_value());
  // The folder as it is: a missing one is judged by its nearest existing parent.
  CHECK_FALSE(results_folder_warning("/proc/nonexistent/results", 1).has_value());
}
