#include "harness/record/run_writer.hpp"

#include <regex>
#include <set>

#include "harness/core/run_layout.hpp"
#include "harness/core/run_schema.hpp"
#include "harness/core/sqlite.hpp"
#include "harness/record/provenance.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "tests/support/shell_output.hpp"

namespace scalestudy::record {
namespace {

using testing::fresh_dir;
using testing::read_text;

RunIdentity identity_of_rank(int rank) {
  RunIdentity identity;
  identity.run_id = "0123456789abcdef";
  identity.workload = "train";
  identity.rank = rank;
  identity.world_size = 2;
  identity.host = "testhost";
  identity.backend = "gloo";
  identity.config = {{"lr", "0.1"}, {"note", "quote \" and \\ and\nnewline"}};
  return identity;
}

std::optional<sqlite::Value> scalar(sqlite::Database& db, const std::string& sql) {
  auto value = db.query_value(sql);
  REQUIRE(value);
  return *value;
}

// Column names and declared types of `table`, in order.
std::vector<std::string> columns(sqlite::Database& db, const std::string& table) {
  auto rows = db.query("SELECT name, type, \"notnull\" FROM pragma_table_info('" + table + "')");
  REQUIRE(rows);
  std::vector<std::string> described;
  for (const auto& row : *rows) {
    described.push_back(sqlite::to_string(row[0]) + " " + sqlite::to_string(row[1]) + " " +
                        sqlite::to_string(row[2]));
  }
  return described;
}

}  // namespace

TEST_CASE("the writer's schema is the one docs/run-database.md documents") {
  // The document's SQL block, built in memory, must describe the same tables and columns.
  std::string doc =
      read_text(std::string(std::getenv("SCALESTUDY_SOURCE_DIR")) + "/docs/run-database.md");
  std::smatch block;
  REQUIRE(std::regex_search(doc, block, std::regex("```sql\\n([\\s\\S]*?)```")));
  auto documented = sqlite::Database::open(":memory:");
  REQUIRE(documented);
  REQUIRE(documented->exec(block[1].str()));
  auto written = sqlite::Database::open(":memory:");
  REQUIRE(written);
  REQUIRE(written->exec(run_schema::kCreateSql));
  REQUIRE(written->exec(run_schema::kAddedSql));
  for (const char* table : {"run", "provenance", "steps", "epochs", "summary", "telemetry",
                            "collectives", "arrivals", "energy"}) {
    INFO(table);
    CHECK(!columns(*documented, table).empty());
    CHECK(columns(*written, table) == columns(*documented, table));
  }
}

TEST_CASE("a completed run: every table readable, steps in batches, WAL, version 1") {
  std::string dir = fresh_dir("run-writer") + "/nested/out";
  auto writer = RunWriter::create(dir, identity_of_rank(1));
  REQUIRE(writer);
  CHECK((*writer)->path() == dir + "/rank1.sqlite");
  REQUIRE((*writer)->add_provenance({{"git_commit", "abc"}, {"hostname", "testhost"}}));

  const int64_t step_count = RunWriter::kStepBatch + 7;
  for (int64_t step = 0; step < step_count; ++step) {
    StepRow row;
    row.global_step = step;
    row.warmup = step < 5;
    row.samples = 32;
    row.times[metrics::Phase::kForward] = 1.5;
    row.times[metrics::Phase::kStep] = 4.0 + static_cast<double>(step);
    row.loss = step == 3 ? std::nullopt : std::optional<double>(2.0 / (step + 1));
    REQUIRE((*writer)->add_step(row));
  }
  {
    // A reader sees the first full batch already, and not yet the remainder.
    auto reader = sqlite::Database::open((*writer)->path(), sqlite::OpenMode::kReadOnly);
    REQUIRE(reader);
    auto visible = scalar(*reader, "SELECT count(*) FROM steps");
    CHECK(std::get<int64_t>(*visible) == static_cast<int64_t>(RunWriter::kStepBatch));
  }
  EpochRow epoch;
  epoch.epoch = 1;
  epoch.lr = 0.05;
  epoch.train_loss = 0.4;
  epoch.train_acc = 0.85;
  epoch.samples_per_s = 5321;
  epoch.epoch_s = 11.2;
  REQUIRE((*writer)->add_epoch(epoch));
  REQUIRE((*writer)->set_summary({{"samples_per_s", 5321.0}, {"cpu_rss_peak_bytes", 1e8}}));
  metrics::TelemetrySample sample;
  sample.t_s = 0.5;
  sample.cpu_rss_bytes = 123456;
  REQUIRE((*writer)->add_telemetry({sample, sample}));
  REQUIRE(
      (*writer)->add_collectives({CollectiveRow{"allreduce", 1024, "float32", 10, 5, 0.2, 0.2}}));
  REQUIRE((*writer)->mark_completed());
  std::string path = (*writer)->path();
  (*writer)->close();
  CHECK(!(*writer)->add_step(StepRow{}));  // closed stays closed

  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  REQUIRE(db);
  CHECK(std::get<int64_t>(*scalar(*db, "PRAGMA user_version")) == run_schema::kVersion);
  CHECK(std::get<std::string>(*scalar(*db, "PRAGMA journal_mode")) == "wal");
  CHECK(std::get<int64_t>(*scalar(*db, "SELECT count(*) FROM steps")) == step_count);
  CHECK(std::get<int64_t>(*scalar(*db, "SELECT sum(warmup) FROM steps")) == 5);
  CHECK(std::holds_alternative<std::monostate>(
      *scalar(*db, "SELECT loss FROM steps WHERE global_step = 3")));
  CHECK(std::get<std::string>(*scalar(*db, "SELECT status FROM run")) == "completed");
  CHECK(std::holds_alternative<std::string>(*scalar(*db, "SELECT finished_at FROM run")));
  CHECK(std::holds_alternative<std::monostate>(*scalar(*db, "SELECT failure_reason FROM run")));
  CHECK(std::get<std::string>(*scalar(*db, "SELECT backend FROM run")) == "gloo");
  CHECK(std::get<std::string>(*scalar(*db, "SELECT config_json FROM run")) ==
        "{\"lr\": \"0.1\", \"note\": \"quote \\\" and \\\\ and\\nnewline\"}");
  CHECK(std::get<int64_t>(*scalar(*db, "SELECT count(*) FROM telemetry")) == 2);
  CHECK(std::get<double>(*scalar(*db, "SELECT value FROM summary WHERE name='samples_per_s'")) ==
        5321.0);
  CHECK(std::get<int64_t>(*scalar(*db, "SELECT bytes FROM collectives")) == 1024);

  // The sqlite3 command-line shell reads it as well.
  CHECK(testing::run_shell("sqlite3 " + path + " 'SELECT status, world_size FROM run'").text ==
        "completed|2\n");
  CHECK(testing::run_shell("sqlite3 " + path + " 'SELECT epoch, train_acc FROM epochs'").text ==
        "1|0.85\n");
}

TEST_CASE("a failed run keeps its reason and its buffered steps; a rerun replaces the file") {
  std::string dir = fresh_dir("run-writer-failed");
  {
    auto writer = RunWriter::create(dir, identity_of_rank(0));
    REQUIRE(writer);
    StepRow row;
    row.samples = 8;
    REQUIRE((*writer)->add_step(row));
    REQUIRE((*writer)->mark_failed("peer rank died or timed out: all-reduce"));
  }
  auto db =
      sqlite::Database::open(run_layout::rank_database_path(dir, 0), sqlite::OpenMode::kReadOnly);
  REQUIRE(db);
  CHECK(std::get<std::string>(*scalar(*db, "SELECT status FROM run")) == "failed");
  CHECK(std::get<std::string>(*scalar(*db, "SELECT failure_reason FROM run")) ==
        "peer rank died or timed out: all-reduce");
  CHECK(std::get<int64_t>(*scalar(*db, "SELECT count(*) FROM steps")) == 1);

  auto rerun = RunWriter::create(dir, identity_of_rank(0));
  REQUIRE(rerun);
  auto fresh =
      sqlite::Database::open(run_layout::rank_database_path(dir, 0), sqlite::OpenMode::kReadOnly);
  REQUIRE(fresh);
  CHECK(std::get<std::string>(*scalar(*fresh, "SELECT status FROM run")) == "running");
  CHECK(std::get<int64_t>(*scalar(*fresh, "SELECT count(*) FROM steps")) == 0);
}

TEST_CASE("a resumed attempt continues the record: rows kept up to its checkpoint") {
  std::string dir = fresh_dir("run-writer-continue");
  {
    auto writer = RunWriter::create(dir, identity_of_rank(0));
    REQUIRE(writer);
    for (int64_t step = 0; step < 6; ++step) {
      StepRow row;
      row.global_step = step;
      row.epoch = step < 3 ? 1 : 2;
      REQUIRE((*writer)->add_step(row));
    }
    EpochRow epoch;
    REQUIRE((*writer)->add_epoch(epoch));
    REQUIRE((*writer)->add_arrivals({{2, 1.5}, {3, 2.5}, {4, 3.5}, {5, 4.5}}));
    metrics::EnergyRow first, unread;
    first.epoch = 1;
    first.samples = 48;
    first.energy_j = 90;
    first.clock_events = "hw thermal slowdown";
    unread.epoch = 2;
    unread.unavailable = "no GPU: the run is on the CPU";
    REQUIRE((*writer)->add_energy({first, unread}));
    REQUIRE((*writer)->mark_failed("checkpointed at global step 4"));
  }
  RunIdentity second = identity_of_rank(0);
  second.host = "otherhost";
  auto writer = RunWriter::create(dir, second, RunWriter::Attempt::kContinue);
  REQUIRE(writer);
  REQUIRE((*writer)->discard_from(4, 2));
  {
    auto db =
        sqlite::Database::open(run_layout::rank_database_path(dir, 0), sqlite::OpenMode::kReadOnly);
    REQUIRE(db);
    CHECK(std::get<std::string>(*scalar(*db, "SELECT status || host FROM run")) ==
          "runningotherhost");
    CHECK(std::get<int64_t>(
              *scalar(*db, "SELECT failure_reason IS NULL AND finished_at IS NULL FROM run")) == 1);
    CHECK(std::get<int64_t>(*scalar(*db, "SELECT max(global_step) FROM steps")) == 3);
    CHECK(std::get<int64_t>(*scalar(*db, "SELECT count(*) FROM epochs")) == 1);
    CHECK(std::get<int64_t>(*scalar(*db, "SELECT max(global_step) FROM arrivals")) == 3);
    // The epoch redone loses its energy row; the one kept keeps its figures.
    CHECK(std::get<std::string>(
              *scalar(*db,
                      "SELECT epoch || ' ' || samples || ' ' || energy_j || ' ' || clock_events || "
                      "unavailable FROM energy")) == "1 48 90.0 hw thermal slowdown");
  }
  // An earlier attempt's file from before the arrivals table existed gets it.
  writer->reset();
  {
    auto db = sqlite::Database::open(run_layout::rank_database_path(dir, 0));
    REQUIRE(db);
    REQUIRE(db->exec("DROP TABLE arrivals"));
  }
  auto third = RunWriter::create(dir, second, RunWriter::Attempt::kContinue);
  REQUIRE(third);
  CHECK((*third)->add_arrivals({{4, 3.5}}));
  // Without an earlier file, kContinue starts a fresh one.
  std::string empty = fresh_dir("run-writer-continue-none");
  auto fresh = RunWriter::create(empty, identity_of_rank(1), RunWriter::Attempt::kContinue);
  REQUIRE(fresh);
  CHECK(std::filesystem::exists(run_layout::rank_database_path(empty, 1)));
}

TEST_CASE("an out-dir that cannot be created is an error naming it") {
  std::string blocker = fresh_dir("run-writer-blocked") + "/file";
  { std::ofstream(blocker) << "x"; }
  auto writer = RunWriter::create(blocker + "/sub", identity_of_rank(0));
  REQUIRE(!writer);
  CHECK(writer.status().message().find(blocker) != std::string::npos);
}

TEST_CASE("provenance: build, host and the runtime environment") {
  ProvenanceEntries entries = collect_provenance({{"NCCL_DEBUG", "INFO"},
                                                  {"OMP_NUM_THREADS", "2"},
                                                  {"HOME", "/root"},
                                                  {"SLURM_JOB_ID", "77"},
                                                  {"SLURM_JOB_NODELIST", "n[1-2]"},
                                                  {"ATEN_CPU_CAPABILITY", "avx2"},
                                                  {"ONEDNN_MAX_CPU_ISA", "AVX2"}});
  for (const char* key :
       {"git_commit", "git_dirty", "compiler", "build_type", "libtorch_version", "gloo", "hostname",
        "cpu_model", "cpu_cores", "cpu_isa", "scalestudy_version"}) {
    INFO(key);
    REQUIRE(entries.count(key));
    CHECK(!entries[key].empty());
  }
  CHECK(entries["env.NCCL_DEBUG"] == "INFO");
  CHECK(entries["env.OMP_NUM_THREADS"] == "2");
  // The caps on the CPU kernels' ISA beside the level the CPU offers.
  CHECK(entries["env.ATEN_CPU_CAPABILITY"] == "avx2");
  CHECK(entries["env.ONEDNN_MAX_CPU_ISA"] == "AVX2");
  CHECK(std::set<std::string>{"amx", "avx512_bf16", "avx512", "avx2", "baseline"}.count(
            entries["cpu_isa"]) == 1);
  CHECK(entries.count("env.HOME") == 0);
  CHECK(entries["slurm_job_id"] == "77");
  CHECK(entries["slurm_nodelist"] == "n[1-2]");
  CHECK(std::set<std::string>{"true", "false", "unknown"}.count(entries["git_dirty"]) == 1);
}

}  // namespace scalestudy::record
