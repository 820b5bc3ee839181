// Probe: the narrow window through which every sysinfo section looks at the machine.
// Files are read under an injectable root (tests point it at a fake /proc + /sys tree),
// commands are found on the probe's own PATH and run with a timeout, statfs(2) and the
// NVML library name are injectable too. Probe::local() is this machine. Immutable after
// construction; safe to share between threads.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::sysinfo {

struct FilesystemStats {
  unsigned long long type_magic = 0;  // statfs f_type
  unsigned long long total_bytes = 0;
  unsigned long long available_bytes = 0;  // to unprivileged users (f_bavail)
};

struct CommandOutput {
  int exit_code = -1;  // -1: killed or timed out
  std::string stdout_text;
  std::string stderr_text;
  bool succeeded() const { return exit_code == 0; }
};

struct ProbeOptions {
  std::string root = "/";                  // prefix of every absolute path read
  std::map<std::string, std::string> env;  // the environment seen: PATH, CUDA_HOME ...
  std::function<Result<FilesystemStats>(const std::string& path)> statfs;  // default statfs(2)
  std::string nvml_library = "libnvidia-ml.so.1";  // dlopen()ed by the GPU section
  int command_timeout_ms = 10'000;
};

class Probe {
 public:
  explicit Probe(ProbeOptions options);
  // This machine: root "/", the process environment, statfs(2).
  static Probe local();

  // Contents of `path` (absolute, re-rooted under the root); nullopt if unreadable.
  std::optional<std::string> read_file(const std::string& path) const;
  // The first line of `path`, trimmed; nullopt if unreadable or empty.
  std::optional<std::string> read_line(const std::string& path) const;
  // Sorted entry names of a directory; empty when it does not exist.
  std::vector<std::string> list_dir(const std::string& path) const;
  bool exists(const std::string& path) const;
  // `path` as the real filesystem sees it (the root prepended).
  std::string host_path(const std::string& path) const;

  std::optional<std::string> env(const std::string& name) const;
  // The executable `name` on the probe's PATH.
  std::optional<std::string> find_program(const std::string& name) const;
  // Runs a program found with find_program, in the C locale; an error when it is not
  // installed or could not be started. A non-zero exit is an output for the caller to judge.
  Result<CommandOutput> run(const std::vector<std::string>& argv) const;

  Result<FilesystemStats> statfs(const std::string& path) const;
  const std::string& nvml_library() const { return options_.nvml_library; }
  bool is_real_root() const { return options_.root == "/"; }

 private:
  ProbeOptions options_;
};

}  // namespace scalestudy::sysinfo
