#include "orchestrator/common/safe_files.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace scalestudy::common {
namespace {

std::string error_text(const std::string& path) {
  return path + ": " + std::strerror(errno);
}

Status write_all(int fd, const std::string& text, const std::string& path) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t count = ::write(fd, text.data() + written, text.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return Status::error("cannot write " + error_text(path));
    written += static_cast<size_t>(count);
  }
  return Status::ok();
}

std::string owner_name(uid_t uid) {
  const passwd* user = getpwuid(uid);
  return user != nullptr ? user->pw_name : "uid " + std::to_string(uid);
}

}  // namespace

Status write_file_replacing(const std::string& path, const std::string& text, mode_t mode) {
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkstemp(temporary.data());  // O_CREAT | O_EXCL: never an existing name
  if (fd < 0) return Status::error("cannot create a file beside " + error_text(path));
  Status written = write_all(fd, text, temporary);
  if (written && ::fchmod(fd, mode) != 0) written = Status::error(error_text(temporary));
  if (::close(fd) != 0 && written) written = Status::error(error_text(temporary));
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0) {
    written = Status::error("cannot move " + temporary + " to " + error_text(path));
  }
  if (!written) ::unlink(temporary.c_str());
  return written;
}

Status write_file_once(const std::string& path, const std::string& text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0 && errno == EEXIST) {
    // A file or a symlink stands for the content; a folder there means it cannot be written.
    struct stat info {};
    if (::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      return Status::error(path + ": a folder is there, not a file");
    }
    return Status::ok();
  }
  if (fd < 0) return Status::error(error_text(path));
  Status written = write_all(fd, text, path);
  if (written && ::fchmod(fd, mode) != 0) written = Status::error(error_text(path));
  if (::close(fd) != 0 && written) written = Status::error(error_text(path));
  // Half a file must not stand for a whole one: readers go by its existence.
  if (!written) ::unlink(path.c_str());
  return written;
}

Status make_owned_directory(const std::string& dir, mode_t mode,
                            const std::vector<uid_t>& trusted_owners) {
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error) return Status::error(parent.string() + ": " + error.message());
  if (::mkdir(dir.c_str(), mode) == 0) {
    if (::chmod(dir.c_str(), mode) != 0) return Status::error(error_text(dir));
    return Status::ok();
  }
  if (errno != EEXIST) return Status::error("cannot create " + error_text(dir));
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0) return Status::error(error_text(dir));
  if (S_ISLNK(info.st_mode)) {
    return Status::error(dir +
                         " is a symlink, not a folder: refused (someone could point it "
                         "anywhere); remove it");
  }
  if (!S_ISDIR(info.st_mode)) return Status::error(dir + " exists and is not a folder");
  const bool trusted =
      info.st_uid == ::geteuid() ||
      std::find(trusted_owners.begin(), trusted_owners.end(), info.st_uid) != trusted_owners.end();
  if (!trusted) {
    return Status::error(dir + " belongs to " + owner_name(info.st_uid) +
                         ", not to this user: refused (what it holds could be theirs); remove "
                         "it or choose another folder");
  }
  return Status::ok();
}

}  // namespace scalestudy::common
