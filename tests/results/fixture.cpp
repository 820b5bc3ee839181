#include "tests/results/fixture.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "harness/core/run_schema.hpp"
#include "harness/core/sqlite.hpp"
#include "orchestrator/campaign/study_state_schema.hpp"

namespace scalestudy::results::testing {
namespace {

namespace fs = std::filesystem;

sqlite::Database open_or_fail(const std::string& path) {
  auto db = sqlite::Database::open(path);
  REQUIRE_MESSAGE(db.is_ok(), db.status().message());
  return std::move(*db);
}

void exec_or_fail(sqlite::Database& db, const std::string& sql,
                  const std::vector<sqlite::Value>& params = {}) {
  auto rows = db.query(sql, params);
  REQUIRE_MESSAGE(rows.is_ok(), rows.status().message());
}

// Escaped as JSON, so hostile values (quotes, newlines) arrive as written.
std::string json_object(const std::map<std::string, std::string>& values) {
  return nlohmann::json(values).dump();
}

}  // namespace

StudyFixture::StudyFixture(const std::string& name, const std::string& kind,
                           const std::string& baseline_json, const std::string& report_json) {
  static std::atomic<int> counter{0};
  dir_ = (fs::temp_directory_path() / ("scalestudy_results_" + name + "_" +
                                       std::to_string(getpid()) + "_" + std::to_string(counter++)))
             .string();
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  db_path_ = dir_ + "/" + name + ".sqlite";
  auto db = open_or_fail(db_path_);
  REQUIRE(db.use_wal().is_ok());
  REQUIRE(db.exec(campaign::kStudySchemaSql).is_ok());
  exec_or_fail(db,
               "INSERT INTO study (name, kind, source_path, baseline_json, report_json) "
               "VALUES (?, ?, ?, ?, ?)",
               {name, kind, dir_ + "/" + name + ".yaml", baseline_json, report_json});
}

StudyFixture::~StudyFixture() {
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

std::string StudyFixture::out_dir(const std::string& run_id) const {
  return dir_ + "/runs/" + run_id;
}

std::string StudyFixture::rank_path(const std::string& run_id, int rank) const {
  return out_dir(run_id) + "/rank" + std::to_string(rank) + ".sqlite";
}

void StudyFixture::add_run(const FixtureRun& run) {
  auto db = open_or_fail(db_path_);
  exec_or_fail(
      db,
      "INSERT INTO runs (run_id, repeat, nodes, tasks_per_node, world_size, "
      "gpus_per_node, global_batch, per_gpu_batch, varied_json, params_json, spec_json, "
      "profiled, state, attempts, scheduler, job_id, out_dir) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, 1, 'local', ?, ?)",
      {run.run_id, int64_t{run.repeat}, int64_t{run.nodes}, int64_t{run.tasks_per_node},
       int64_t{run.world_size}, int64_t{run.gpus_per_node}, int64_t{run.global_batch},
       int64_t{run.per_gpu_batch}, json_object(run.varied),
       "{\"workload\":\"" + run.workload + "\",\"params\":" + json_object(run.params) +
           (run.metrics_json.empty() ? "" : ",\"metrics\":" + run.metrics_json) +
           (run.system_json.empty() ? "" : ",\"system\":" + run.system_json) + "}",
       int64_t{run.profiled ? 1 : 0}, run.state, "job-" + run.run_id, out_dir(run.run_id)});
  if (!run.write_rank_files) return;
  FixtureRun timed = run;
  if (timed.started_at.empty()) {
    // Run n from 00:(10n) to 00:(10n + 9), hours rolling over: no two runs overlap.
    char start[32], finish[32];
    const int minutes = 10 * runs_added_;
    std::snprintf(start, sizeof start, "2025-01-01T%02d:%02d:00Z", minutes / 60, minutes % 60);
    std::snprintf(finish, sizeof finish, "2025-01-01T%02d:%02d:00Z", minutes / 60,
                  minutes % 60 + 9);
    timed.started_at = start;
    timed.finished_at = finish;
  }
  ++runs_added_;
  fs::create_directories(out_dir(run.run_id));
  for (int rank = 0; rank < run.world_size; ++rank) {
    write_rank_database(rank_path(run.run_id, rank), timed, rank);
  }
}

void write_rank_database(const std::string& path, const FixtureRun& run, int rank) {
  fs::remove(path);
  auto db = open_or_fail(path);
  REQUIRE(db.use_wal().is_ok());
  REQUIRE(db.exec("PRAGMA synchronous=NORMAL").is_ok());
  REQUIRE(db.exec(run_schema::kCreateSql).is_ok());
  REQUIRE(db.exec("PRAGMA user_version = " + std::to_string(run_schema::kVersion)).is_ok());
  REQUIRE(db.exec("BEGIN").is_ok());
  exec_or_fail(
      db, "INSERT INTO run VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'completed', NULL)",
      {run.run_id, run.workload, int64_t{rank}, int64_t{rank % run.tasks_per_node},
       int64_t{run.world_size}, run.rank_hosts.empty() ? run.host : run.rank_hosts.at(rank),
       run.gpus_per_node ? "cuda:0" : "cpu",
       run.world_size > 1 ? (run.gpus_per_node ? "nccl" : "gloo") : "none", run.config_json,
       run.started_at.empty() ? "2025-01-01T00:00:00Z" : run.started_at,
       run.finished_at.empty() ? "2025-01-01T00:10:00Z" : run.finished_at});
  exec_or_fail(db, "INSERT INTO provenance VALUES ('git_commit', ?), ('hostname', 'host0')",
               {run.git_commit});
  if (!run.gpu_model.empty()) {
    exec_or_fail(db, "INSERT INTO provenance VALUES ('gpu_model', ?)", {run.gpu_model});
  }
  const int steps = run.warmup_steps + run.measured_steps;
  const double offset_s =
      rank < static_cast<int>(run.clock_offset_s.size()) ? run.clock_offset_s[rank] : 0.0;
  if (!run.arrival_lag_ms.empty()) {
    REQUIRE(db.exec(run_schema::kAddedSql).is_ok());
    for (int step = run.warmup_steps; step < steps; ++step) {
      const double arrival_unix_s = 1.7e9 + step + run.arrival_lag_ms.at(rank) / 1000 - offset_s;
      exec_or_fail(db, "INSERT INTO arrivals VALUES (?, ?)", {int64_t{step}, arrival_unix_s});
    }
  }
  for (int step = 0; step < steps; ++step) {
    const double slow = step < run.warmup_steps ? 10 : 1;
    exec_or_fail(db, "INSERT INTO steps VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, 2.0)",
                 {int64_t{step}, int64_t{step < run.warmup_steps}, int64_t{run.per_gpu_batch},
                  run.data_ms * slow, run.forward_ms * slow, run.backward_ms * slow,
                  run.comm_exposed_ms * slow, run.optimizer_ms * slow, run.step_ms * slow});
  }
  for (size_t epoch = 0; epoch < run.epoch_s.size(); ++epoch) {
    sqlite::Value accuracy = std::monostate{};
    if (epoch < run.val_acc.size()) accuracy = run.val_acc[epoch];
    exec_or_fail(db, "INSERT INTO epochs VALUES (?, 0.1, 1.5, 0.4, 1.2, ?, ?, ?)",
                 {int64_t(epoch + 1), accuracy, run.samples_per_s, run.epoch_s[epoch]});
  }
  const double rank_extra_bytes = rank * run.memory_step_per_rank_bytes;
  std::vector<std::pair<std::string, double>> summary = {
      {"samples_per_s", run.samples_per_s},
      {"step_ms_median", run.step_ms},
      {"cpu_rss_peak_bytes", run.cpu_rss_peak_bytes + rank_extra_bytes},
      {"gradient_bytes", run.gradient_bytes},
      {"bucket_cap_mb", run.bucket_cap_mb}};
  if (!run.val_acc.empty()) summary.push_back({"final_val_acc", run.val_acc.back()});
  if (run.recorded_global_batch) summary.push_back({"global_batch", *run.recorded_global_batch});
  if (run.recorded_per_rank_batch) {
    summary.push_back({"per_rank_batch", *run.recorded_per_rank_batch});
  }
  if (run.gpu_mem_peak_bytes) {
    summary.push_back({"gpu_mem_peak_bytes", *run.gpu_mem_peak_bytes + rank_extra_bytes});
  }
  if (run.gpu_mem_avg_bytes) {
    summary.push_back({"gpu_mem_avg_bytes", *run.gpu_mem_avg_bytes + rank_extra_bytes});
  }
  if (run.gpu_mem_mode_bytes) summary.push_back({"gpu_mem_mode_bytes", *run.gpu_mem_mode_bytes});
  summary.insert(summary.end(), run.extra_summary.begin(), run.extra_summary.end());
  if (offset_s != 0) summary.push_back({"clock_offset_s", offset_s});
  for (const auto& [name, value] : summary) {
    exec_or_fail(db, "INSERT INTO summary VALUES (?, ?)", {name, value});
  }
  for (int sample = 0; sample < 3; ++sample) {
    sqlite::Value nvml_used = std::monostate{};
    if (run.nvml_used_bytes) {
      nvml_used = int64_t(*run.nvml_used_bytes + rank_extra_bytes) + int64_t{1'000'000} * sample;
    }
    exec_or_fail(
        db, "INSERT INTO telemetry VALUES (?, ?, NULL, ?, NULL, NULL)",
        {double(sample), int64_t(run.cpu_rss_peak_bytes + rank_extra_bytes) - sample, nvml_used});
  }
  for (const auto& [bytes, busbw] : run.collectives) {
    const double algbw =
        run.world_size > 1 ? busbw * run.world_size / (2.0 * (run.world_size - 1)) : busbw;
    exec_or_fail(db, "INSERT INTO collectives VALUES ('allreduce', ?, 'float32', 20, ?, ?, ?)",
                 {bytes, bytes / (algbw * 1e3), algbw, busbw});
  }
  REQUIRE(db.exec("COMMIT").is_ok());
}

std::string dump_database(const std::string& path) {
  auto db = open_or_fail(path);
  auto tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  REQUIRE(tables.is_ok());
  std::string dump;
  for (const auto& table : *tables) {
    const std::string name = sqlite::to_string(table[0]);
    auto rows = db.query("SELECT * FROM " + name);
    REQUIRE(rows.is_ok());
    std::vector<std::string> lines;
    for (const auto& row : *rows) {
      std::string line;
      for (const auto& value : row) line += sqlite::to_string(value) + "|";
      lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    dump += "[" + name + "]\n";
    for (const auto& line : lines) dump += line + "\n";
  }
  return dump;
}

}  // namespace scalestudy::results::testing
