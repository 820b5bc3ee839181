#include <doctest/doctest.h>

#include "orchestrator/sysinfo/filesystem_type.hpp"
#include "orchestrator/sysinfo/sections.hpp"
#include "tests/sysinfo/fake_root.hpp"

namespace scalestudy::sysinfo {
namespace {

using testing::fact;
using testing::FakeRoot;

Probe probe_with_statfs(const FakeRoot& root, unsigned long long magic,
                        std::vector<std::string>* measured_paths) {
  ProbeOptions options;
  options.root = root.dir();
  options.env["PATH"] = root.bin();
  options.statfs = [=](const std::string& path) -> Result<FilesystemStats> {
    measured_paths->push_back(path);
    return FilesystemStats{magic, 10ULL << 40, 3ULL << 40};
  };
  return Probe(options);
}

TEST_CASE("a results dir on Lustre is named by the statfs magic and flagged as shared") {
  FakeRoot root;
  std::string scratch = std::filesystem::path(root.dir()).parent_path().string();
  root.write("/proc/self/mounts",
             "/dev/sda1 / ext4 rw 0 0\n10.0.0.1@o2ib:/scratch " + scratch + " lustre rw 0 0\n");
  std::vector<std::string> measured;
  Section storage =
      probe_storage(probe_with_statfs(root, 0x0BD00BD0, &measured),
                    {{"results_dir", "Results directory", root.dir() + "/not/yet/created"}});
  CHECK(fact(storage, "results_dir_fs_type") == "lustre");
  CHECK(fact(storage, "results_dir_mount") == scratch);
  CHECK(fact(storage, "results_dir_free_bytes") == std::to_string(3ULL << 40));
  REQUIRE(measured.size() == 1);
  CHECK(measured[0].find(root.dir()) == 0);  // the nearest existing parent was measured
  REQUIRE(storage.notes.size() == 1);
  CHECK(storage.notes[0].find("shared between nodes") != std::string::npos);
  REQUIRE(storage.tables.size() == 1);
  CHECK(storage.tables[0].rows[0][5] == "10.0 TiB");
}

TEST_CASE("the mount table refines ext2/3/4 to the mounted type; NFS is shared") {
  FakeRoot root;
  std::vector<std::string> measured;
  root.write("/proc/self/mounts", "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n");
  Section local = probe_storage(probe_with_statfs(root, 0xEF53, &measured),
                                {{"results_dir", "Results directory", "/"}});
  CHECK(fact(local, "results_dir_fs_type") == "ext4");
  CHECK(fact(local, "results_dir_mount") == "/");
  CHECK(local.notes.empty());

  Section shared =
      probe_storage(probe_with_statfs(root, 0x6969, &measured), {{"data_root", "Data root", "/"}});
  CHECK(fact(shared, "data_root_fs_type") == "nfs");
  CHECK(shared.notes.size() == 1);
}

TEST_CASE("filesystem magic numbers") {
  CHECK(filesystem_name(0x47504653) == "gpfs");
  CHECK(filesystem_name(0x58465342) == "xfs");
  CHECK(filesystem_name(0x1234) == "unknown (0x1234)");
  CHECK(is_shared_filesystem("lustre"));
  CHECK(is_shared_filesystem("fuse.sshfs"));
  CHECK_FALSE(is_shared_filesystem("xfs"));
}

void write_interface(const FakeRoot& root, const std::string& name, int type,
                     const std::string& state, const std::string& speed, bool is_virtual) {
  std::string dir = "/sys/class/net/" + name + "/";
  root.write(dir + "type", std::to_string(type) + "\n");
  root.write(dir + "operstate", state + "\n");
  root.write(dir + "speed", speed + "\n");
  root.write(dir + "mtu", "1500\n");
  if (is_virtual) root.make_dir("/sys/devices/virtual/net/" + name);
}

TEST_CASE("interfaces, InfiniBand ports and the NCCL interface hints") {
  FakeRoot root;
  write_interface(root, "lo", 772, "unknown", "-1", true);
  write_interface(root, "docker0", 1, "up", "-1", true);
  write_interface(root, "eno1", 1, "up", "25000", false);
  write_interface(root, "ib0", 32, "up", "200000", false);
  write_interface(root, "eno2", 1, "down", "-1", false);
  root.write("/sys/class/infiniband/mlx5_0/fw_ver", "20.31.1014\n");
  root.write("/sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  root.write("/sys/class/infiniband/mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)\n");
  root.write("/sys/class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
  root.write("/sys/class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");
  Section network = probe_network(root.probe());
  CHECK(fact(network, "net_interfaces") == "docker0,eno1,eno2,ib0,lo");
  CHECK(fact(network, "nccl_socket_ifname_hint") == "ib0");
  CHECK(fact(network, "ib_devices") == "mlx5_0,mlx5_1");
  CHECK(fact(network, "nccl_ib_hca_hint") == "mlx5_0:1");
  REQUIRE(network.tables.size() == 2);
  CHECK(network.tables[0].rows[0][1] == "virtual");
  CHECK(network.tables[1].rows[0] == std::vector<std::string>{"mlx5_0", "1", "ACTIVE",
                                                              "200 Gb/sec (4X HDR)", "InfiniBand",
                                                              "20.31.1014"});
}

TEST_CASE("without IPoIB the fastest physical interface that is up is the hint") {
  FakeRoot root;
  write_interface(root, "eth0", 1, "up", "10000", false);
  write_interface(root, "eth1", 1, "up", "100000", false);
  Section network = probe_network(root.probe());
  CHECK(fact(network, "nccl_socket_ifname_hint") == "eth1");
  CHECK(testing::find_fact(network, "ib_devices")->display == "none");
}

}  // namespace
}  // namespace scalestudy::sysinfo
