#include "orchestrator/sysinfo/probe.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "orchestrator/common/process_runner.hpp"
#include "orchestrator/sysinfo/text.hpp"

extern char** environ;

namespace scalestudy::sysinfo {
namespace {

Result<FilesystemStats> real_statfs(const std::string& path) {
  struct statfs info {};
  if (::statfs(path.c_str(), &info) != 0) {
    return Status::error("statfs " + path + ": " + std::strerror(errno));
  }
  FilesystemStats stats;
  stats.type_magic = static_cast<unsigned long long>(info.f_type);
  stats.total_bytes = static_cast<unsigned long long>(info.f_blocks) * info.f_frsize;
  stats.available_bytes = static_cast<unsigned long long>(info.f_bavail) * info.f_frsize;
  return stats;
}

}  // namespace

Probe::Probe(ProbeOptions options) : options_(std::move(options)) {
  if (!options_.statfs) options_.statfs = real_statfs;
  while (options_.root.size() > 1 && options_.root.back() == '/') options_.root.pop_back();
}

Probe Probe::local() {
  ProbeOptions options;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text(*entry);
    auto equals = text.find('=');
    if (equals != std::string::npos) options.env[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return Probe(std::move(options));
}

std::string Probe::host_path(const std::string& path) const {
  return options_.root == "/" ? path : options_.root + path;
}

std::optional<std::string> Probe::read_file(const std::string& path) const {
  std::ifstream file(host_path(path), std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) return std::nullopt;
  return contents.str();
}

std::optional<std::string> Probe::read_line(const std::string& path) const {
  auto contents = read_file(path);
  if (!contents) return std::nullopt;
  std::string line = first_line(*contents);
  if (line.empty()) return std::nullopt;
  return line;
}

std::vector<std::string> Probe::list_dir(const std::string& path) const {
  std::vector<std::string> names;
  DIR* dir = opendir(host_path(path).c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool Probe::exists(const std::string& path) const {
  struct stat info {};
  return ::stat(host_path(path).c_str(), &info) == 0;
}

std::optional<std::string> Probe::env(const std::string& name) const {
  auto found = options_.env.find(name);
  if (found == options_.env.end()) return std::nullopt;
  return found->second;
}

std::optional<std::string> Probe::find_program(const std::string& name) const {
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) == 0) return name;
    return std::nullopt;
  }
  for (const auto& dir : split(env("PATH").value_or(""), ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

Result<CommandOutput> Probe::run(const std::vector<std::string>& argv) const {
  auto program = find_program(argv.at(0));
  if (!program) return Status::error("`" + argv[0] + "` not found on PATH");
  common::ProcessRequest request;
  request.argv = argv;
  request.argv[0] = *program;
  request.env_overrides = options_.env;
  request.env_overrides["LC_ALL"] = "C";
  request.timeout_ms = options_.command_timeout_ms;
  auto result = common::run_process(request);
  if (!result) return result.status();
  if (result->timed_out) {
    return Status::error("`" + common::describe_command(argv) + "` timed out after " +
                         std::to_string(options_.command_timeout_ms) + " ms");
  }
  return CommandOutput{result->exit_code, result->stdout_text, result->stderr_text};
}

Result<FilesystemStats> Probe::statfs(const std::string& path) const {
  return options_.statfs(path);
}

}  // namespace scalestudy::sysinfo
