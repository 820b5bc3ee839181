#include "orchestrator/campaign/job_directory.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "orchestrator/common/safe_files.hpp"

namespace scalestudy::campaign {
namespace {

bool in_group(const passwd& user, gid_t group) {
  if (user.pw_gid == group) return true;
  int count = 64;
  std::vector<gid_t> groups(count);
  if (getgrouplist(user.pw_name, user.pw_gid, groups.data(), &count) < 0) {
    groups.resize(count);
    if (getgrouplist(user.pw_name, user.pw_gid, groups.data(), &count) < 0) return false;
  }
  for (int i = 0; i < count; ++i) {
    if (groups[i] == group) return true;
  }
  return false;
}

bool writable_by(const struct stat& info, const passwd& user) {
  if (info.st_uid == user.pw_uid) return (info.st_mode & S_IWUSR) && (info.st_mode & S_IXUSR);
  if (in_group(user, info.st_gid)) return (info.st_mode & S_IWGRP) && (info.st_mode & S_IXGRP);
  return (info.st_mode & S_IWOTH) && (info.st_mode & S_IXOTH);
}

bool searchable_by(const struct stat& info, const passwd& user) {
  if (user.pw_uid == 0) return true;
  if (info.st_uid == user.pw_uid) return info.st_mode & S_IXUSR;
  if (in_group(user, info.st_gid)) return info.st_mode & S_IXGRP;
  return info.st_mode & S_IXOTH;
}

// The first folder above `dir` that `user` may not enter: on the node, the job could not
// open its output files there ("Could not open stdout file: Permission denied", sacct's
// FAILED 0:53, with nothing in the job's own output to say so).
Status check_reachable(const std::string& dir, const passwd& user) {
  std::error_code error;
  std::filesystem::path folder = std::filesystem::absolute(dir, error).parent_path();
  for (; !folder.empty(); folder = folder.parent_path()) {
    struct stat info {};
    if (stat(folder.c_str(), &info) == 0 && !searchable_by(info, user)) {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(info.st_mode & 07777));
      return Status::error(folder.string() + ": " + user.pw_name +
                           ", the user the jobs run as, cannot enter it (mode " + mode +
                           "), so the jobs could not open their output files below it (sacct: "
                           "FAILED 0:53): let it through (chmod o+x " +
                           folder.string() + ") or choose a results folder it can reach");
    }
    if (folder == folder.root_path()) break;
  }
  return Status::ok();
}

}  // namespace

Status check_reachable_by_owner(const std::string& dir) {
  struct stat info {};
  if (stat(dir.c_str(), &info) != 0 || info.st_uid == 0) return Status::ok();
  const passwd* owner = getpwuid(info.st_uid);
  return owner == nullptr ? Status::ok() : check_reachable(dir, *owner);
}

Status prepare_job_directory(const std::string& dir, const std::string& job_user) {
  const passwd* user = job_user.empty() ? nullptr : getpwnam(job_user.c_str());
  if (!job_user.empty() && user == nullptr) {
    return Status::error("jobs run as user '" + job_user + "', who does not exist on this host");
  }
  // Handed to the job's user earlier (as root, below), a folder is theirs: still trusted.
  std::vector<uid_t> trusted;
  if (user != nullptr) trusted.push_back(user->pw_uid);
  if (Status made = common::make_owned_directory(dir, 0750, trusted); !made) return made;
  if (user == nullptr || user->pw_uid == geteuid()) return Status::ok();
  if (Status reachable = check_reachable(dir, *user); !reachable) return reachable;
  if (geteuid() == 0) {
    if (chown(dir.c_str(), user->pw_uid, user->pw_gid) != 0) {
      return Status::error(dir + ": cannot hand it to " + job_user +
                           ", the user the jobs run as: " + std::strerror(errno));
    }
    return Status::ok();
  }
  struct stat info {};
  if (stat(dir.c_str(), &info) != 0) return Status::error(dir + ": " + std::strerror(errno));
  if (!writable_by(info, *user)) {
    return Status::error(dir + ": not writable by " + job_user +
                         ", the user the jobs run as (their output files could not be "
                         "created): make it writable by " +
                         job_user + ", or submit with a token of your own user");
  }
  return Status::ok();
}

}  // namespace scalestudy::campaign
