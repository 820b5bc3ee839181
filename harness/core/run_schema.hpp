// The run database schema (version 1), exactly as docs/run-database.md documents it: the
// contract between a workload rank (harness/record writes it) and the orchestrator's
// ingest (orchestrator/results reads it). The CREATE statements are those of
// python/scalestudy/schema/run.sql, embedded at build time (cmake/ScalestudySchema.cmake);
// the column lists below are spelled here, and tests/core pins them to those statements
// (tests/python/schema_agreement_test.py pins the Python package's). Torch-free constants.
#pragma once

#include "scalestudy_schema/run_sql.hpp"

namespace scalestudy::run_schema {

// PRAGMA user_version of a run database; readers refuse any other.
inline constexpr int kVersion = 1;

// kCreateSql (the tables of the first files) and kAddedSql (tables added within version 1,
// after the first files were written: a writer creates them with the rest, and in an
// earlier attempt's file it continues; readers take a file without them as one that
// recorded no such data; `arrivals`: per measured step, when this rank reached the gradient
// all-reduce on its host's realtime clock; `energy`: per epoch, the device's energy, power
// and clocks over the measured steps) come from python/scalestudy/schema/run.sql, the
// one definition, which the Python package reads too.

// A table and its columns in CREATE order, comma-separated, ready for SELECT and INSERT.
struct Table {
  const char* name;
  const char* columns;
};

// `run` has one row per file. Its identity columns (run_id, rank) key every row that
// ingest copies; kRun lists the other columns.
inline constexpr Table kRun = {"run",
                               "workload, local_rank, world_size, host, device, backend, "
                               "config_json, started_at, finished_at, status, failure_reason"};
inline constexpr Table kProvenance = {"provenance", "key, value"};
inline constexpr Table kSteps = {"steps",
                                 "global_step, epoch, warmup, samples, data_ms, forward_ms, "
                                 "backward_ms, comm_exposed_ms, optimizer_ms, step_ms, loss"};
inline constexpr Table kEpochs = {
    "epochs", "epoch, lr, train_loss, train_acc, val_loss, val_acc, samples_per_s, epoch_s"};
inline constexpr Table kSummary = {"summary", "name, value"};
inline constexpr Table kTelemetry = {
    "telemetry", "t_s, cpu_rss_bytes, gpu_util_pct, gpu_mem_used_bytes, gpu_power_w, gpu_temp_c"};
inline constexpr Table kCollectives = {
    "collectives", "op, bytes, dtype, iterations, time_us, algbw_gbps, busbw_gbps"};

inline constexpr Table kArrivals = {"arrivals", "global_step, arrival_unix_s"};
inline constexpr Table kEnergy = {
    "energy",
    "epoch, samples, measured_s, energy_j, avg_power_w, peak_power_w, "
    "sm_clock_max_mhz, sm_clock_min_mhz, clock_events, unavailable"};

inline constexpr Table kTables[] = {kRun,       kProvenance,  kSteps,    kEpochs, kSummary,
                                    kTelemetry, kCollectives, kArrivals, kEnergy};

}  // namespace scalestudy::run_schema
