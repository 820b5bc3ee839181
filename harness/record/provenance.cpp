#include "harness/record/provenance.hpp"

#include <torch/version.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#if __has_include(<gloo/config.h>)
#include <gloo/config.h>
#endif

#include "harness/core/cpu_isa.hpp"
#include "harness/core/elf_build_id.hpp"
#include "harness/record/build_info.hpp"

namespace scalestudy::record {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string gloo_version() {
#ifdef GLOO_VERSION_MAJOR
  return std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) + "." +
         std::to_string(GLOO_VERSION_PATCH);
#else
  return "bundled with libtorch";
#endif
}

// The BLAS this process loaded, as the loader resolved it: Debian's alternatives decide
// what libblas.so.3 is (reference BLAS or an OpenBLAS build), and it moves CPU step times by
// 2x (docs/performance.md). Empty when none is mapped (a LibTorch with BLAS built in).
std::string mapped_blas_library() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    size_t path = line.find('/');
    if (path == std::string::npos) continue;
    std::string file = line.substr(path);
    std::string name = file.substr(file.rfind('/') + 1);
    if (starts_with(name, "libblas.so") || starts_with(name, "libopenblas") ||
        starts_with(name, "libmkl_rt")) {
      return file;
    }
  }
  return "";
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (!starts_with(line, "model name")) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

std::string cpu_isa() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::ostringstream text;
  text << cpuinfo.rdbuf();
  return cpu_isa_of_cpuinfo(text.str());
}

ProvenanceEntries collect_provenance(const std::map<std::string, std::string>& environment) {
  BuildInfo build = build_info();
  ProvenanceEntries entries = {
      {"git_commit", build.git_commit},
      {"git_dirty", build.git_dirty},
      {"compiler", build.compiler},
      {"build_type", build.build_type},
      {"scalestudy_version", build.scalestudy_version},
      {"libtorch_version", TORCH_VERSION},
      {"gloo", gloo_version()},
      {"hostname", host_name()},
      {"cpu_model", cpu_model()},
      {"cpu_cores", std::to_string(std::thread::hardware_concurrency())},
      {"cpu_isa", cpu_isa()},
  };
  // The binary's content: two runs of one commit built twice (other flags, another
  // compiler) still differ here.
  if (auto id = elf_build_id("/proc/self/exe")) entries["binary_build_id"] = *id;
  if (std::string blas = mapped_blas_library(); !blas.empty()) entries["blas_library"] = blas;
  const std::map<std::string, std::string> slurm_keys = {
      {"SLURM_JOB_ID", "slurm_job_id"},
      {"SLURM_ARRAY_TASK_ID", "slurm_array_task_id"},
      {"SLURM_JOB_NODELIST", "slurm_nodelist"},
      // Set by the job script (scontrol --version) and by the slurmrest backend.
      {"SCALESTUDY_SLURM_RELEASE", "slurm_version"},
      {"SCALESTUDY_SLURMREST_API", "slurmrest_api"},
  };
  for (const auto& [variable, key] : slurm_keys) {
    auto found = environment.find(variable);
    if (found != environment.end()) entries[key] = found->second;
  }
  for (const auto& [name, value] : environment) {
    for (const char* prefix : {"NCCL_", "GLOO_", "OMP_", "GOMP_", "OPENBLAS_", "CUDA_", "TORCH_",
                               "ATEN_", "ONEDNN_", "DNNL_"}) {
      if (starts_with(name, prefix)) entries["env." + name] = value;
    }
  }
  return entries;
}

}  // namespace scalestudy::record
