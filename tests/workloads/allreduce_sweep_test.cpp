// scalestudy-allreduce through the real binary, on 1 rank and on 2 ranks over gloo
// (scalestudy-launch): one `collectives` row per swept size on rank 0, bytes ascending as
// the flags ask, algbw = bytes / time and busbw = algbw · 2(n−1)/n exactly, a passing
// correctness check; and flags it cannot honour fail the run with the reason.
#include <doctest/doctest.h>

#include <vector>

#include "harness/core/sqlite.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/run_database_reader.hpp"

namespace scalestudy {
namespace {

struct CollectiveRecord {
  std::string op, dtype;
  int64_t bytes = 0, iterations = 0;
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0;
};

std::vector<CollectiveRecord> collectives_of(const std::string& path) {
  auto db = sqlite::Database::open(path, sqlite::OpenMode::kReadOnly);
  REQUIRE_MESSAGE(db, db.status().message());
  auto rows = db->query(
      "SELECT op, dtype, bytes, iterations, time_us, algbw_gbps, busbw_gbps FROM collectives "
      "ORDER BY rowid");
  REQUIRE_MESSAGE(rows, rows.status().message());
  std::vector<CollectiveRecord> records;
  for (const auto& row : *rows) {
    records.push_back({sqlite::to_string(row[0]), sqlite::to_string(row[1]),
                       std::get<int64_t>(row[2]), std::get<int64_t>(row[3]),
                       std::get<double>(row[4]), std::get<double>(row[5]),
                       std::get<double>(row[6])});
  }
  return records;
}

std::vector<std::string> sweep_command(const std::string& out_dir,
                                       const std::vector<std::string>& extra) {
  std::vector<std::string> command = {testing::binary("scalestudy-allreduce"),
                                      "--out-dir",
                                      out_dir,
                                      "--run-id",
                                      "sweeptest",
                                      "--min-bytes",
                                      "1K",
                                      "--max-bytes",
                                      "64K",
                                      "--iters",
                                      "3",
                                      "--warmup-iters",
                                      "1",
                                      "--threads",
                                      "1"};
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

// Every row of a completed `ranks`-rank sweep of `dtype` from 1 KiB to 64 KiB.
void check_sweep(const std::string& out_dir, const std::string& output, int ranks,
                 const std::string& dtype) {
  const std::string rank0 = out_dir + "/rank0.sqlite";
  CHECK(testing::db_text(rank0, "SELECT status || ' ' || workload || ' ' || world_size FROM run") ==
        "completed allreduce " + std::to_string(ranks));
  std::vector<CollectiveRecord> records = collectives_of(rank0);
  std::vector<int64_t> bytes;
  double busbw_sum = 0;
  const double bus_factor = 2.0 * (ranks - 1) / ranks;
  for (const CollectiveRecord& record : records) {
    CAPTURE(record.bytes);
    bytes.push_back(record.bytes);
    CHECK(record.op == "allreduce");
    CHECK(record.dtype == dtype);
    CHECK(record.iterations == 3);
    CHECK(record.time_us > 0);
    CHECK(record.algbw_gbps == static_cast<double>(record.bytes) / record.time_us / 1e3);
    CHECK(record.busbw_gbps == record.algbw_gbps * bus_factor);
    busbw_sum += record.busbw_gbps;
  }
  CHECK(bytes == std::vector<int64_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536});
  CHECK(testing::db_number(rank0, "SELECT value FROM summary WHERE name = 'busbw_avg_gbps'") ==
        doctest::Approx(busbw_sum / static_cast<double>(records.size())));
  // The table: one row per size, each with 0 wrong values, and the verdict.
  CHECK(testing::count_occurrences(output, " " + dtype + "    sum ") == records.size());
  CHECK(output.find("# Out of bounds values : 0 OK") != std::string::npos);
}

}  // namespace

TEST_CASE("one rank: every size recorded, busbw 0 (no bus), the check passes") {
  const std::string dir = testing::fresh_dir("allreduce-1rank");
  auto run = testing::run_to_end(sweep_command(dir, {}), {}, dir + "/out.txt", 60);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  check_sweep(dir, run.output, 1, "float32");
  CHECK(run.output.find("1 rank (none), float32, sum, in place") != std::string::npos);
}

TEST_CASE("two ranks over gloo: rank 0 records the max-over-ranks times, busbw = algbw") {
  for (std::string dtype : {"float32", "float16"}) {
    CAPTURE(dtype);
    const std::string dir = testing::fresh_dir("allreduce-2ranks-" + dtype);
    std::vector<std::string> command = {testing::binary("scalestudy-launch"), "--nproc-per-node",
                                        "2", "--"};
    for (const std::string& word : sweep_command(dir, {"--dtype", dtype})) {
      command.push_back(word);
    }
    auto run = testing::run_to_end(command, {}, dir + "/out.txt", 120);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    check_sweep(dir, run.output, 2, dtype);
    CHECK(run.output.find("2 ranks (gloo)") != std::string::npos);
    const std::string rank1 = dir + "/rank1.sqlite";
    CHECK(testing::db_text(rank1, "SELECT status || ' ' || backend FROM run") == "completed gloo");
    CHECK(testing::db_text(rank1, "SELECT count(*) FROM collectives") == "0");
  }
}

TEST_CASE("flags the sweep cannot honour fail the run before any rendezvous") {
  const std::string dir = testing::fresh_dir("allreduce-badflags");
  struct Case {
    std::vector<std::string> flags;
    std::string reason;
  };
  for (const Case& bad : {
           Case{{"--op", "max"}, "--op: 'max' is not supported"},
           Case{{"--max-bytes", "4X"}, "--max-bytes: '4X' is not a byte size"},
           Case{{"--min-bytes", "1M"}, "0 < min-bytes <= max-bytes"},
           Case{{"--step-factor", "1"}, "--step-factor must be at least 2"},
           Case{{"--dtype", "int8"}, "--dtype: 'int8' is not one of float32, bfloat16, float16"},
           Case{{"--iters", "0"}, "--iters must be at least 1"},
       }) {
    CAPTURE(bad.reason);
    auto run = testing::run_to_end(sweep_command(dir, bad.flags), {}, dir + "/out.txt", 60);
    CHECK(run.exit_code == 1);
    CHECK(run.output.find(bad.reason) != std::string::npos);
    CHECK(testing::db_text(dir + "/rank0.sqlite", "SELECT status FROM run") == "failed");
    CHECK(testing::db_text(dir + "/rank0.sqlite", "SELECT failure_reason FROM run")
              .find(bad.reason) != std::string::npos);
  }
}

}  // namespace scalestudy
