#include "orchestrator/sysinfo/debian_packages.hpp"
#include "orchestrator/sysinfo/sections.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {
namespace {

std::string cuda_home(const Probe& probe) {
  for (const char* name : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto value = probe.env(name); value && !value->empty()) return *value;
  }
  return "/usr/local/cuda";
}

std::vector<std::string> include_dirs(const Probe& probe) {
  std::vector<std::string> dirs{cuda_home(probe) + "/include"};
  for (const char* name : {"NCCL_HOME", "CUDNN_HOME", "CUDNN_PATH"}) {
    if (auto value = probe.env(name); value && !value->empty()) dirs.push_back(*value + "/include");
  }
  for (const char* dir : {"/usr/include", "/usr/include/x86_64-linux-gnu",
                          "/usr/include/aarch64-linux-gnu", "/usr/local/include"}) {
    dirs.push_back(dir);
  }
  return dirs;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

// MAJOR.MINOR.PATCH from the first of `headers` found in `dirs` that defines them all.
void add_header_version(const Probe& probe, Section& section, const std::string& key,
                        const std::string& label, const std::vector<std::string>& headers,
                        const std::vector<std::string>& macros) {
  auto dirs = include_dirs(probe);
  for (const auto& dir : dirs) {
    for (const auto& header : headers) {
      auto text = probe.read_file(dir + "/" + header);
      if (!text) continue;
      std::string version;
      for (const auto& macro : macros) {
        auto value = header_define(*text, macro);
        if (!value) {
          version.clear();
          break;
        }
        version += (version.empty() ? "" : ".") + *value;
      }
      if (version.empty()) continue;
      section.add(key, label, version, dir + "/" + header + " (" + joined(macros) + ")");
      return;
    }
  }
  section.add(key, label, "", "no " + joined(headers) + " in " + joined(dirs));
}

void add_cuda_toolkit(const Probe& probe, Section& section) {
  std::string home = cuda_home(probe);
  std::string header = home + "/include/cuda_runtime_api.h";
  auto runtime = header_define(probe.read_file(header).value_or(""), "CUDART_VERSION");
  std::string version;
  if (auto number = leading_number(runtime.value_or(""))) {
    version = std::to_string(*number / 1000) + "." + std::to_string(*number % 1000 / 10);
  }
  section.add("cuda_version", "CUDA runtime (toolkit)", version,
              version.empty() ? "no " + header : header + " (CUDART_VERSION)");

  std::string nvcc = home + "/bin/nvcc";
  if (!probe.is_real_root() || !probe.exists(nvcc)) nvcc = "nvcc";
  auto output = probe.run({nvcc, "--version"});
  std::string release;
  if (output && output->succeeded()) {
    for (const auto& line : split_lines(output->stdout_text)) {
      auto at = line.find(", V");
      if (line.find("release") != std::string::npos && at != std::string::npos) {
        release = trim(line.substr(at + 3));
      }
    }
  }
  section.add("nvcc_version", "nvcc", release,
              output ? "`" + nvcc + " --version`" : output.status().message());
}

// Where LibTorch may live: an unpacked libtorch zip named by the environment, or the
// Debian package under /usr.
std::vector<std::string> libtorch_roots(const Probe& probe) {
  std::vector<std::string> roots;
  if (auto value = probe.env("LIBTORCH"); value && !value->empty()) roots.push_back(*value);
  if (auto value = probe.env("Torch_DIR"); value && !value->empty()) {
    roots.push_back(*value + "/../../..");  // <root>/share/cmake/Torch
  }
  for (const auto& prefix : split(probe.env("CMAKE_PREFIX_PATH").value_or(""), ':')) {
    if (!prefix.empty()) roots.push_back(prefix);
  }
  for (const char* root : {"/usr/local/libtorch", "/opt/libtorch", "/usr"}) roots.push_back(root);
  return roots;
}

void add_libtorch(const Probe& probe, Section& section) {
  const std::string version_header = "/include/torch/csrc/api/include/torch/version.h";
  std::string version, source, root_found;
  for (const auto& root : libtorch_roots(probe)) {
    if (auto build_version = probe.read_line(root + "/build-version")) {
      version = *build_version;
      source = root + "/build-version";
    } else if (auto text = probe.read_file(root + version_header)) {
      version = header_define(*text, "TORCH_VERSION").value_or("");
      source = root + version_header + " (TORCH_VERSION)";
    }
    if (!version.empty()) {
      root_found = root;
      break;
    }
  }
  section.add("libtorch_version", "LibTorch", version,
              version.empty()
                  ? "no build-version or torch/version.h under " + joined(libtorch_roots(probe))
                  : source);
  if (!root_found.empty()) {
    bool cuda = false;
    for (const char* lib : {"/lib/libtorch_cuda.so", "/lib/x86_64-linux-gnu/libtorch_cuda.so",
                            "/lib/aarch64-linux-gnu/libtorch_cuda.so"}) {
      cuda = cuda || probe.exists(root_found + lib);
    }
    section.add("libtorch_variant", "LibTorch variant", cuda ? "CUDA" : "CPU-only",
                root_found + "/lib*/libtorch_cuda.so " + (cuda ? "present" : "absent"));
  }
  std::string package = debian_package_version(probe, "libtorch-dev");
  if (!package.empty()) {
    section.add("libtorch_package", "LibTorch Debian package", package,
                "/var/lib/dpkg/status (libtorch-dev)");
  }
}

}  // namespace

Section probe_software(const Probe& probe) {
  Section section;
  section.title = "Software";
  add_cuda_toolkit(probe, section);
  add_header_version(probe, section, "cudnn_version", "cuDNN", {"cudnn_version.h", "cudnn.h"},
                     {"CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"});
  add_header_version(probe, section, "nccl_version", "NCCL", {"nccl.h"},
                     {"NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"});
  add_libtorch(probe, section);
  return section;
}

}  // namespace scalestudy::sysinfo
