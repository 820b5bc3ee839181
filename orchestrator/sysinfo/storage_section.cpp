#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <sstream>

#include "orchestrator/common/human_bytes.hpp"
#include "orchestrator/sysinfo/filesystem_type.hpp"
#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

struct Mount {
  std::string device, point, type;
};

// /proc/mounts escapes blanks in paths as octal ("\040").
std::string unescape_mount_path(const std::string& text) {
  std::string path;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      path += static_cast<char>(std::strtol(text.substr(i + 1, 3).c_str(), nullptr, 8));
      i += 3;
    } else {
      path += text[i];
    }
  }
  return path;
}

// The mount holding `path`: the longest mount point that is a whole-component prefix.
Mount mount_of(const Probe& probe, const std::string& path) {
  Mount best;
  for (const auto& line : split_lines(probe.read_file("/proc/self/mounts").value_or(""))) {
    std::istringstream fields(line);
    Mount mount;
    fields >> mount.device >> mount.point >> mount.type;
    mount.point = unescape_mount_path(mount.point);
    bool contains = mount.point == "/" || path == mount.point ||
                    (starts_with(path, mount.point) && path[mount.point.size()] == '/');
    if (contains && mount.point.size() >= best.point.size()) best = mount;
  }
  return best;
}

// Absolute, symlink-free form of the nearest existing ancestor of `path`.
std::string nearest_existing(const std::string& path) {
  std::string absolute = path;
  if (absolute.empty() || absolute[0] != '/') {
    char cwd[PATH_MAX];
    absolute = std::string(getcwd(cwd, sizeof(cwd)) ? cwd : "") + "/" + path;
  }
  struct stat info {};
  while (::stat(absolute.c_str(), &info) != 0 && absolute.size() > 1) {
    auto slash = absolute.find_last_of('/');
    absolute = slash == 0 ? "/" : absolute.substr(0, slash);
  }
  char resolved[PATH_MAX];
  return realpath(absolute.c_str(), resolved) ? std::string(resolved) : absolute;
}

}  // namespace

Section probe_storage(const Probe& probe, const std::vector<StoragePath>& paths) {
  Section section;
  section.title = "Storage";
  Table table{"", {"Role", "Path", "Filesystem", "Mount point", "Device", "Size", "Free"}, {}};
  for (const auto& [role, label, path] : paths) {
    std::string measured = nearest_existing(path);
    auto stats = probe.statfs(measured);
    if (!stats) {
      section.add(role + "_fs_type", label + " filesystem", "", stats.status().message());
      continue;
    }
    Mount mount = mount_of(probe, measured);
    std::string by_magic = filesystem_name(stats->type_magic);
    // The mount table names ext4 vs ext3 and fuse subtypes; the magic number decides
    // when the two disagree (a bind mount listed under its source type, for instance).
    std::string type = by_magic;
    if (!mount.type.empty() && (by_magic.find(mount.type) != std::string::npos ||
                                (by_magic == "fuse" && starts_with(mount.type, "fuse")))) {
      type = mount.type;
    }
    section.add(role + "_fs_type", label + " filesystem", type,
                "statfs(" + measured + ") f_type " + by_magic + ", /proc/self/mounts");
    section.add(role + "_mount", label + " mount point", mount.point, "/proc/self/mounts");
    section.add_bytes(role + "_free_bytes", label + " free space", stats->available_bytes,
                      "statfs(" + measured + ")");
    table.rows.push_back({label, path, type, mount.point, mount.device,
                          common::human_bytes(stats->total_bytes),
                          common::human_bytes(stats->available_bytes)});
    if (is_shared_filesystem(type)) {
      section.notes.push_back(
          "`" + path + "` is on " + type +
          ", shared between nodes: scalestudy writes one SQLite file per rank there (safe "
          "without cross-node locks); keep the study database (`results/<study>.sqlite`) to "
          "one writer at a time.");
    }
  }
  if (!table.rows.empty()) section.tables.push_back(std::move(table));
  return section;
}

}  // namespace scalestudy::sysinfo
