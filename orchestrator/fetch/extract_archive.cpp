#include "orchestrator/fetch/extract_archive.hpp"

#include <sys/stat.h>

#include <sstream>
#include <vector>

#include "orchestrator/common/process_runner.hpp"

namespace scalestudy::fetch {
namespace {

// ImageNet-sized archives on slow shared storage.
constexpr int kExtractTimeoutMs = 60 * 60 * 1000;

// Unpacked, real data sets are a few times their archive (images hardly compress); a
// bomb is thousands of times.
constexpr unsigned long long kMaxExpansion = 100;

Result<std::string> run_tool(const std::vector<std::string>& argv, const std::string& archive) {
  auto result = common::run_process({argv, {}, kExtractTimeoutMs});
  if (!result) return result.status().with_context("reading " + archive);
  if (!result->succeeded()) return common::command_error(argv, *result);
  return std::move(result->stdout_text);
}

// One archive member as listed: its type (the mode string's first letter: '-' a file,
// 'd' a folder, 'l' a symlink, 'h' a hard link, ...) and size.
struct Member {
  char type = '?';
  unsigned long long bytes = 0;
  std::string line;
};

// `tar -tvz --numeric-owner` lines: MODE UID/GID SIZE DATE TIME NAME; `unzip -Z` lines:
// MODE VERSION OS SIZE ... NAME. Other lines (zipinfo's header and totals) are skipped.
std::vector<Member> list_members(const std::string& listing, size_t size_field) {
  std::vector<Member> members;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string word; fields.size() <= size_field && words >> word;) fields.push_back(word);
    if (fields.size() <= size_field || fields[0].size() < 7) continue;
    if (std::string("-dlhbcps").find(fields[0][0]) == std::string::npos) continue;
    const std::string& size = fields[size_field];
    if (size.empty() || size.find_first_not_of("0123456789") != std::string::npos) continue;
    members.push_back({fields[0][0], std::stoull(size), line});
  }
  return members;
}

// Only files and folders, together at most kMaxExpansion times the archive's size: a link
// could point a later extraction outside the data set, a bomb fill the disk.
Status check_members(ExtractKind kind, const std::string& archive) {
  auto listing = kind == ExtractKind::kTarGz
                     ? run_tool({"tar", "-tvzf", archive, "--numeric-owner"}, archive)
                     : run_tool({"unzip", "-Z", archive}, archive);
  if (!listing) return listing.status();
  struct stat info {};
  if (::stat(archive.c_str(), &info) != 0) return Status::error("cannot stat " + archive);
  const unsigned long long limit = kMaxExpansion * static_cast<unsigned long long>(info.st_size);
  unsigned long long total = 0;
  for (const Member& member : list_members(*listing, kind == ExtractKind::kTarGz ? 2 : 3)) {
    if (member.type != '-' && member.type != 'd') {
      return Status::error(archive +
                           " holds a member that is no file or folder (a link, "
                           "device or pipe), which is never unpacked: " +
                           member.line);
    }
    total += member.bytes;
    if (total > limit) {
      return Status::error(archive + " unpacks to more than " + std::to_string(kMaxExpansion) +
                           " times its size (" + std::to_string(limit) + " bytes): not unpacked");
    }
  }
  return Status::ok();
}

}  // namespace

Status extract_archive(ExtractKind kind, const std::string& archive,
                       const std::string& destination) {
  std::vector<std::string> argv;
  switch (kind) {
    case ExtractKind::kNone:
      return Status::ok();
    case ExtractKind::kTarGz:
      argv = {
          "tar", "-xzf", archive, "-C", destination, "--no-same-owner", "--no-same-permissions"};
      break;
    case ExtractKind::kZip:
      argv = {"unzip", "-q", "-o", archive, "-d", destination};
      break;
  }
  if (Status members = check_members(kind, archive); !members) return members;
  auto extracted = run_tool(argv, archive);
  if (!extracted) return extracted.status().with_context("extracting " + archive);
  return Status::ok();
}

}  // namespace scalestudy::fetch
