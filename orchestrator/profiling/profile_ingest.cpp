#include "orchestrator/profiling/profile_ingest.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "orchestrator/profiling/ncu_csv.hpp"
#include "orchestrator/profiling/nsys_export.hpp"
#include "orchestrator/profiling/nsys_stats.hpp"
#include "orchestrator/profiling/nvtx_trace.hpp"
#include "orchestrator/profiling/profile_store.hpp"

namespace scalestudy::profiling {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::string source_of(const std::string& name) {
  if (ends_with(name, "_cuda_gpu_kern_sum.csv") || ends_with(name, "_cuda_gpu_mem_time_sum.csv") ||
      ends_with(name, "_nvtx_sum.csv")) {
    return "nsys-stats";
  }
  if (starts_with(name, "nsys-") && ends_with(name, ".sqlite")) return "nsys-sqlite";
  if (starts_with(name, "ncu-") && ends_with(name, ".csv")) return "ncu";
  if (starts_with(name, "trace-") && ends_with(name, ".json")) return "nvtx-trace";
  return "";
}

int rank_of(const std::string& name) {
  static const std::regex kRank("rank([0-9]+)");
  std::smatch match;
  return std::regex_search(name, match, kRank) ? std::stoi(match[1]) : 0;
}

// Adds one file's content to the (rank, source) profile it belongs to.
Status read_into(const IngestedFile& file, ProfileData& data) {
  data.source = file.source;
  const std::string name = std::filesystem::path(file.path).filename().string();
  if (file.source == "nsys-stats") {
    if (ends_with(name, "_nvtx_sum.csv")) {
      auto ranges = read_nsys_nvtx_summary(file.path);
      if (!ranges) return ranges.status();
      data.ranges.insert(data.ranges.end(), ranges->begin(), ranges->end());
      return Status::ok();
    }
    auto kernels = ends_with(name, "_cuda_gpu_kern_sum.csv") ? read_nsys_kernel_summary(file.path)
                                                             : read_nsys_memory_summary(file.path);
    if (!kernels) return kernels.status();
    data.kernels.insert(data.kernels.end(), kernels->begin(), kernels->end());
    return Status::ok();
  }
  if (file.source == "nsys-sqlite") {
    auto exported = read_nsys_export(file.path);
    if (!exported) return exported.status();
    data.kernels = std::move(exported->kernels);
    data.ranges = std::move(exported->ranges);
    return Status::ok();
  }
  if (file.source == "ncu") {
    auto kernels = read_ncu_csv(file.path);
    if (!kernels) return kernels.status();
    data.kernels = std::move(*kernels);
    return Status::ok();
  }
  auto trace = read_nvtx_trace(file.path);
  if (!trace) return trace.status();
  data.ranges = summarize_trace(*trace).ranges;
  return Status::ok();
}

}  // namespace

std::vector<IngestedFile> find_profile_files(const std::string& out_dir) {
  std::vector<IngestedFile> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir, error)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    std::string source = source_of(name);
    if (!source.empty()) files.push_back({entry.path().string(), source, rank_of(name)});
  }
  std::sort(files.begin(), files.end(),
            [](const IngestedFile& a, const IngestedFile& b) { return a.path < b.path; });
  return files;
}

Result<std::vector<IngestedFile>> ingest_profile_dir(sqlite::Database& db,
                                                     const std::string& run_id,
                                                     const std::string& out_dir) {
  std::vector<IngestedFile> files = find_profile_files(out_dir);
  std::map<std::pair<int, std::string>, ProfileData> profiles;
  for (const IngestedFile& file : files) {
    if (Status read = read_into(file, profiles[{file.rank, file.source}]); !read) {
      return read.with_context("run " + run_id);
    }
  }
  for (const auto& [key, data] : profiles) {
    if (Status stored = store_profile(db, run_id, key.first, data); !stored) return stored;
  }
  return files;
}

Status ingest_profiled_runs(sqlite::Database& db, const std::string& only_run) {
  auto runs = db.query("SELECT run_id, out_dir FROM runs WHERE profiled = 1 ORDER BY run_id");
  if (!runs) return runs.status();
  for (const auto& row : *runs) {
    const std::string run_id = sqlite::to_string(row[0]);
    if (!only_run.empty() && run_id != only_run) continue;
    auto ingested = ingest_profile_dir(db, run_id, sqlite::to_string(row[1]));
    if (!ingested) return ingested.status();
  }
  return Status::ok();
}

}  // namespace scalestudy::profiling
