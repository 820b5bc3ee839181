#include "orchestrator/sysinfo/filesystem_type.hpp"

#include <cstdio>

namespace scalestudy::sysinfo {

std::string filesystem_name(unsigned long long magic) {
  struct Known {
    unsigned long long magic;
    const char* name;
  };
  // From linux/magic.h and the vendors' sources (Lustre, GPFS, BeeGFS, WekaFS).
  static const Known kKnown[] = {
      {0xEF53, "ext2/ext3/ext4"}, {0x58465342, "xfs"},     {0x9123683E, "btrfs"},
      {0x2FC12FC1, "zfs"},        {0x6969, "nfs"},         {0x0BD00BD0, "lustre"},
      {0x47504653, "gpfs"},       {0x19830326, "beegfs"},  {0x00C36400, "cephfs"},
      {0xFF534D42, "cifs"},       {0xFE534D42, "smb2"},    {0x65735546, "fuse"},
      {0x01021994, "tmpfs"},      {0x794C7630, "overlay"}, {0x73717368, "squashfs"},
      {0x858458F6, "ramfs"},      {0x5346544E, "ntfs"},    {0x4D44, "vfat"},
      {0x9FA0, "proc"},           {0x62656572, "sysfs"},   {0x2011BAB0, "exfat"},
  };
  for (const auto& known : kKnown) {
    if (known.magic == magic) return known.name;
  }
  char text[48];
  std::snprintf(text, sizeof(text), "unknown (0x%llx)", magic);
  return text;
}

bool is_shared_filesystem(const std::string& name) {
  for (const char* shared : {"nfs", "lustre", "gpfs", "beegfs", "ceph", "cifs", "smb", "fuse"}) {
    if (name.compare(0, std::char_traits<char>::length(shared), shared) == 0) return true;
  }
  return false;
}

}  // namespace scalestudy::sysinfo
