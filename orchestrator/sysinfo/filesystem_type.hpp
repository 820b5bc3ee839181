// Names for statfs(2) f_type magic numbers, and which filesystems are shared between
// nodes (where SQLite's file locking and small-file I/O need care). Pure functions.
#pragma once

#include <string>

namespace scalestudy::sysinfo {

// "ext2/ext3/ext4", "xfs", "nfs", "lustre", "gpfs" ...; "unknown (0x1234)" otherwise.
std::string filesystem_name(unsigned long long magic);

// Network or parallel filesystems: nfs, lustre, gpfs, beegfs, cephfs, cifs/smb, fuse-based.
bool is_shared_filesystem(const std::string& name);

}  // namespace scalestudy::sysinfo
