#include "orchestrator/results/ingest/rank_memory.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "orchestrator/results/ingest/sqlite_number.hpp"

namespace scalestudy::results {
namespace {

void keep_largest(std::optional<double>& into, const std::optional<double>& value) {
  if (value) into = std::max(into.value_or(*value), *value);
}

// Running sums for the mean of the repeats' averages.
struct MeanOf {
  double sum = 0;
  int count = 0;
  void add(const std::optional<double>& value) {
    if (value) sum += *value, ++count;
  }
  std::optional<double> mean() const {
    return count ? std::optional<double>(sum / count) : std::nullopt;
  }
};

}  // namespace

Result<std::vector<RankMemory>> load_rank_memory(sqlite::Database& study_db,
                                                 const std::string& run_id) {
  std::map<int, RankMemory> by_rank;
  auto summary = study_db.query(
      "SELECT rank, name, value FROM m_summary WHERE run_id = ? AND name IN "
      "('gpu_mem_peak_bytes', 'gpu_mem_reserved_peak_bytes', 'cpu_rss_peak_bytes')",
      {run_id});
  if (!summary) return summary.status().with_context("per-rank memory of " + run_id);
  for (const auto& row : *summary) {
    const int rank = static_cast<int>(std::get<int64_t>(row[0]));
    RankMemory& memory = by_rank[rank];
    memory.rank = rank;
    const std::string name = sqlite::to_string(row[1]);
    if (name == "gpu_mem_peak_bytes") memory.gpu_peak_bytes = sqlite_number(row[2]);
    if (name == "gpu_mem_reserved_peak_bytes") {
      memory.gpu_reserved_peak_bytes = sqlite_number(row[2]);
    }
    if (name == "cpu_rss_peak_bytes") memory.rss_peak_bytes = sqlite_number(row[2]);
  }
  auto telemetry = study_db.query(
      "SELECT rank, MAX(cpu_rss_bytes), AVG(cpu_rss_bytes), MAX(gpu_mem_used_bytes), "
      "AVG(gpu_mem_used_bytes) FROM m_telemetry WHERE run_id = ? GROUP BY rank",
      {run_id});
  if (!telemetry) return telemetry.status().with_context("per-rank telemetry of " + run_id);
  for (const auto& row : *telemetry) {
    const int rank = static_cast<int>(std::get<int64_t>(row[0]));
    RankMemory& memory = by_rank[rank];
    memory.rank = rank;
    keep_largest(memory.rss_peak_bytes, sqlite_number(row[1]));
    memory.rss_avg_bytes = sqlite_number(row[2]);
    memory.nvml_peak_bytes = sqlite_number(row[3]);
    memory.nvml_avg_bytes = sqlite_number(row[4]);
  }
  auto hosts = study_db.query("SELECT rank, host FROM m_run WHERE run_id = ?", {run_id});
  if (!hosts) return hosts.status().with_context("hosts of " + run_id);
  for (const auto& row : *hosts) {
    auto found = by_rank.find(static_cast<int>(std::get<int64_t>(row[0])));
    if (found != by_rank.end()) found->second.host = sqlite::to_string(row[1]);
  }
  std::vector<RankMemory> ranks;
  for (auto& [rank, memory] : by_rank) ranks.push_back(memory);
  return ranks;
}

std::vector<RankMemory> combine_repeats(const std::vector<std::vector<RankMemory>>& repeats) {
  struct Combined {
    RankMemory peaks;
    MeanOf rss_avg, nvml_avg;
    std::set<std::string> hosts;
  };
  std::map<int, Combined> by_rank;
  for (const auto& repeat : repeats) {
    for (const auto& memory : repeat) {
      Combined& combined = by_rank[memory.rank];
      combined.peaks.rank = memory.rank;
      keep_largest(combined.peaks.gpu_peak_bytes, memory.gpu_peak_bytes);
      keep_largest(combined.peaks.gpu_reserved_peak_bytes, memory.gpu_reserved_peak_bytes);
      keep_largest(combined.peaks.rss_peak_bytes, memory.rss_peak_bytes);
      keep_largest(combined.peaks.nvml_peak_bytes, memory.nvml_peak_bytes);
      if (!memory.host.empty()) combined.hosts.insert(memory.host);
      combined.rss_avg.add(memory.rss_avg_bytes);
      combined.nvml_avg.add(memory.nvml_avg_bytes);
    }
  }
  std::vector<RankMemory> ranks;
  for (auto& [rank, combined] : by_rank) {
    RankMemory memory = combined.peaks;
    memory.rss_avg_bytes = combined.rss_avg.mean();
    memory.nvml_avg_bytes = combined.nvml_avg.mean();
    for (const std::string& host : combined.hosts) {
      memory.host += (memory.host.empty() ? "" : ", ") + host;
    }
    ranks.push_back(memory);
  }
  return ranks;
}

}  // namespace scalestudy::results
