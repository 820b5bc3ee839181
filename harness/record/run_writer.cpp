#include "harness/record/run_writer.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "harness/core/run_layout.hpp"
#include "harness/core/run_schema.hpp"

namespace scalestudy::record {
namespace {

sqlite::Value optional_value(const std::optional<double>& value) {
  return value ? sqlite::Value(*value) : sqlite::Value();
}

sqlite::Value optional_value(const std::optional<int64_t>& value) {
  return value ? sqlite::Value(*value) : sqlite::Value();
}

}  // namespace

std::string utc_timestamp_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[80];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

std::string to_json_object(const std::map<std::string, std::string>& entries) {
  auto quoted = [](const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\r':
          out += "\\r";
          break;
        default:
          if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
            out += escaped;
          } else {
            out += static_cast<char>(c);
          }
      }
    }
    return out + "\"";
  };
  std::string json = "{";
  for (const auto& [key, value] : entries) {
    if (json.size() > 1) json += ", ";
    json += quoted(key) + ": " + quoted(value);
  }
  return json + "}";
}

namespace {

// The run row of `identity`, in a database that has the schema.
Status insert_run_row(sqlite::Database& db, const RunIdentity& identity) {
  auto insert = db.prepare(
      "INSERT INTO run (run_id, workload, rank, local_rank, world_size, host, device, "
      "backend, config_json, started_at, status) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')");
  if (!insert) return insert.status();
  insert->bind(1, identity.run_id)
      .bind(2, identity.workload)
      .bind(3, identity.rank)
      .bind(4, identity.local_rank)
      .bind(5, identity.world_size)
      .bind(6, identity.host)
      .bind(7, identity.device)
      .bind(8, identity.backend)
      .bind(9, to_json_object(identity.config))
      .bind(10, utc_timestamp_now());
  return insert->run();
}

// An earlier attempt's database of this schema version, its run row made this attempt's;
// nullopt when there is none to continue.
Result<std::optional<sqlite::Database>> continue_attempt(const std::string& path,
                                                         const RunIdentity& identity) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::optional<sqlite::Database>();
  auto db = sqlite::Database::open(path);
  if (!db) return db.status();
  auto version = db->query_value("PRAGMA user_version");
  if (!version) return version.status();
  if (!*version || std::get<int64_t>(**version) != run_schema::kVersion) {
    return std::optional<sqlite::Database>();
  }
  auto update = db->prepare(
      "UPDATE run SET status = 'running', failure_reason = NULL, finished_at = NULL, "
      "host = ?, device = ?, backend = ?, config_json = ?");
  if (!update) return update.status();
  update->bind(1, identity.host)
      .bind(2, identity.device)
      .bind(3, identity.backend)
      .bind(4, to_json_object(identity.config));
  if (Status updated = update->run(); !updated) return updated;
  if (Status added = db->exec(run_schema::kAddedSql); !added) return added;
  return std::optional<sqlite::Database>(std::move(*db));
}

}  // namespace

Result<std::unique_ptr<RunWriter>> RunWriter::create(const std::string& out_dir,
                                                     const RunIdentity& identity, Attempt attempt) {
  std::string path = run_layout::rank_database_path(out_dir, identity.rank);
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) return Status::error("cannot create --out-dir '" + out_dir + "': " + error.message());
  if (attempt == Attempt::kContinue) {
    auto continued = continue_attempt(path, identity);
    if (!continued) return continued.status().with_context("continuing run database " + path);
    if (*continued) {
      Status status = (*continued)->use_wal();
      if (status) status = (*continued)->exec("PRAGMA synchronous=NORMAL");
      if (!status) return status.with_context("continuing run database " + path);
      return std::unique_ptr<RunWriter>(new RunWriter(std::move(**continued), path));
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, error);

  auto db = sqlite::Database::open(path);
  if (!db) return db.status();
  Status status = db->use_wal();
  if (status) status = db->exec("PRAGMA synchronous=NORMAL");
  if (status) {
    status = sqlite::in_transaction(*db, [&] {
      if (Status made = db->exec(run_schema::kCreateSql); !made) return made;
      if (Status added = db->exec(run_schema::kAddedSql); !added) return added;
      if (Status versioned =
              db->exec("PRAGMA user_version = " + std::to_string(run_schema::kVersion));
          !versioned) {
        return versioned;
      }
      return insert_run_row(*db, identity);
    });
  }
  if (!status) return status.with_context("creating run database " + path);
  return std::unique_ptr<RunWriter>(new RunWriter(std::move(*db), path));
}

Status RunWriter::discard_from(int64_t global_step, int epoch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return sqlite::in_transaction(*db_, [&] {
    auto steps = db_->prepare("DELETE FROM steps WHERE global_step >= ?");
    if (!steps) return steps.status();
    if (Status deleted = steps->bind(1, global_step).run(); !deleted) return deleted;
    auto epochs = db_->prepare("DELETE FROM epochs WHERE epoch >= ?");
    if (!epochs) return epochs.status();
    if (Status deleted = epochs->bind(1, epoch).run(); !deleted) return deleted;
    auto energy = db_->prepare("DELETE FROM energy WHERE epoch >= ?");
    if (!energy) return energy.status();
    if (Status deleted = energy->bind(1, epoch).run(); !deleted) return deleted;
    auto arrivals = db_->prepare("DELETE FROM arrivals WHERE global_step >= ?");
    if (!arrivals) return arrivals.status();
    return arrivals->bind(1, global_step).run();
  });
}

Status RunWriter::check_open_locked() const {
  if (!db_) return Status::error("run database " + path_ + " is already closed");
  return Status::ok();
}

Status RunWriter::add_provenance(const std::map<std::string, std::string>& entries) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return sqlite::in_transaction(*db_, [&] {
    auto insert = db_->prepare("INSERT OR REPLACE INTO provenance (key, value) VALUES (?, ?)");
    if (!insert) return insert.status();
    for (const auto& [key, value] : entries) {
      if (Status done = insert->bind(1, key).bind(2, value).run(); !done) return done;
    }
    return Status::ok();
  });
}

Status RunWriter::add_step(const StepRow& step) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status open = check_open_locked(); !open) return open;
  pending_steps_.push_back(step);
  if (pending_steps_.size() < kStepBatch) return Status::ok();
  return flush_locked();
}

Status RunWriter::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  return flush_locked();
}

Status RunWriter::flush_locked() {
  if (Status open = check_open_locked(); !open) return open;
  if (pending_steps_.empty()) return Status::ok();
  using metrics::Phase;
  Status status = sqlite::in_transaction(*db_, [&] {
    auto insert = db_->prepare(
        "INSERT OR REPLACE INTO steps (global_step, epoch, warmup, samples, data_ms, "
        "forward_ms, backward_ms, comm_exposed_ms, optimizer_ms, step_ms, loss) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.status();
    for (const StepRow& step : pending_steps_) {
      insert->bind(1, step.global_step)
          .bind(2, step.epoch)
          .bind(3, step.warmup ? 1 : 0)
          .bind(4, step.samples)
          .bind(5, step.times[Phase::kData])
          .bind(6, step.times[Phase::kForward])
          .bind(7, step.times[Phase::kBackward])
          .bind(8, step.times[Phase::kCommExposed])
          .bind(9, step.times[Phase::kOptimizer])
          .bind(10, step.times[Phase::kStep])
          .bind(11, optional_value(step.loss));
      if (Status done = insert->run(); !done) return done;
    }
    return Status::ok();
  });
  if (status) pending_steps_.clear();
  return status;
}

Status RunWriter::add_epoch(const EpochRow& epoch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  auto insert = db_->prepare(
      "INSERT OR REPLACE INTO epochs (epoch, lr, train_loss, train_acc, val_loss, val_acc, "
      "samples_per_s, epoch_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert) return insert.status();
  return insert->bind(1, epoch.epoch)
      .bind(2, epoch.lr)
      .bind(3, epoch.train_loss)
      .bind(4, optional_value(epoch.train_acc))
      .bind(5, optional_value(epoch.val_loss))
      .bind(6, optional_value(epoch.val_acc))
      .bind(7, epoch.samples_per_s)
      .bind(8, epoch.epoch_s)
      .run();
}

Status RunWriter::set_summary(const std::map<std::string, double>& values) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return sqlite::in_transaction(*db_, [&] {
    auto insert = db_->prepare("INSERT OR REPLACE INTO summary (name, value) VALUES (?, ?)");
    if (!insert) return insert.status();
    for (const auto& [name, value] : values) {
      if (Status done = insert->bind(1, name).bind(2, value).run(); !done) return done;
    }
    return Status::ok();
  });
}

Status RunWriter::add_telemetry(const std::vector<metrics::TelemetrySample>& samples) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return sqlite::in_transaction(*db_, [&] {
    auto insert = db_->prepare(
        "INSERT INTO telemetry (t_s, cpu_rss_bytes, gpu_util_pct, gpu_mem_used_bytes, "
        "gpu_power_w, gpu_temp_c) VALUES (?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.status();
    for (const metrics::TelemetrySample& sample : samples) {
      insert->bind(1, sample.t_s)
          .bind(2, optional_value(sample.cpu_rss_bytes))
          .bind(3, optional_value(sample.gpu_util_pct))
          .bind(4, optional_value(sample.gpu_mem_used_bytes))
          .bind(5, optional_value(sample.gpu_power_w))
          .bind(6, optional_value(sample.gpu_temp_c));
      if (Status done = insert->run(); !done) return done;
    }
    return Status::ok();
  });
}

Status RunWriter::add_energy(const std::vector<metrics::EnergyRow>& rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return sqlite::in_transaction(*db_, [&] {
    auto insert =
        db_->prepare(std::string("INSERT OR REPLACE INTO energy (") + run_schema::kEnergy.columns +
                     ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.status();
    for (const metrics::EnergyRow& row : rows) {
      insert->bind(1, int64_t{row.epoch})
          .bind(2, row.samples)
          .bind(3, row.measured_s)
          .bind(4, optional_value(row.energy_j))
          .bind(5, optional_value(row.avg_power_w))
          .bind(6, optional_value(row.peak_power_w))
          .bind(7, optional_value(row.sm_clock_max_mhz))
          .bind(8, optional_value(row.sm_clock_min_mhz))
          .bind(9, row.clock_events)
          .bind(10, row.unavailable);
      if (Status done = insert->run(); !done) return done;
    }
    return Status::ok();
  });
}

Status RunWriter::add_collectives(const std::vector<CollectiveRow>& rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return sqlite::in_transaction(*db_, [&] {
    auto insert = db_->prepare(
        "INSERT INTO collectives (op, bytes, dtype, iterations, time_us, algbw_gbps, "
        "busbw_gbps) VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.status();
    for (const CollectiveRow& row : rows) {
      insert->bind(1, row.op)
          .bind(2, row.bytes)
          .bind(3, row.dtype)
          .bind(4, row.iterations)
          .bind(5, row.time_us)
          .bind(6, row.algbw_gbps)
          .bind(7, row.busbw_gbps);
      if (Status done = insert->run(); !done) return done;
    }
    return Status::ok();
  });
}

Status RunWriter::add_arrivals(const std::vector<ArrivalRow>& rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return sqlite::in_transaction(*db_, [&] {
    auto insert =
        db_->prepare("INSERT OR REPLACE INTO arrivals (global_step, arrival_unix_s) VALUES (?, ?)");
    if (!insert) return insert.status();
    for (const ArrivalRow& row : rows) {
      insert->bind(1, row.global_step).bind(2, row.arrival_unix_s);
      if (Status done = insert->run(); !done) return done;
    }
    return Status::ok();
  });
}

Status RunWriter::finish_locked(const std::string& status,
                                const std::optional<std::string>& reason) {
  if (Status open = check_open_locked(); !open) return open;
  auto update = db_->prepare("UPDATE run SET status = ?, failure_reason = ?, finished_at = ?");
  if (!update) return update.status();
  update->bind(1, status).bind(2, reason ? sqlite::Value(*reason) : sqlite::Value());
  update->bind(3, utc_timestamp_now());
  return update->run();
}

Status RunWriter::mark_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status flushed = flush_locked(); !flushed) return flushed;
  return finish_locked("completed", std::nullopt);
}

Status RunWriter::mark_failed(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!flush_locked()) pending_steps_.clear();  // the reason matters more than lost steps
  return finish_locked("failed", reason);
}

void RunWriter::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  db_.reset();
}

}  // namespace scalestudy::record
