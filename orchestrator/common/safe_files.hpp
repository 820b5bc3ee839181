// Writing where another user may have prepared the path: a results folder on a shared
// filesystem, /tmp, a run folder handed to the account a job runs as. Root submitting for
// another user must never write through that user's symlink, nor into a folder someone
// else made. Functions; each touches only the path it is given.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::common {

// Replaces `path` with `text`, mode `mode` whatever the umask: written to a fresh file
// beside it (O_EXCL | O_NOFOLLOW) and renamed over it, so a symlink at `path` is replaced,
// never followed, and readers never see half a file.
Status write_file_replacing(const std::string& path, const std::string& text, mode_t mode);

// Creates `path` holding `text` unless something (a file, a symlink) is there already:
// O_CREAT | O_EXCL never follows a symlink. Ok either way, but an error where a folder is;
// a failed write removes the file.
Status write_file_once(const std::string& path, const std::string& text, mode_t mode);

// Creates folder `dir` (its missing parents as usual) with `mode` whatever the umask. A
// `dir` already there must be a real folder (no symlink) owned by this process's user or
// by one of `trusted_owners`; the error names its owner otherwise.
Status make_owned_directory(const std::string& dir, mode_t mode,
                            const std::vector<uid_t>& trusted_owners = {});

}  // namespace scalestudy::common
