// A run of many ranks made from a real run's rank database, with no process started: the
// suites and the rank-scale benchmark (benchmarks/orchestrator/rank_scale_benchmark.sh)
// test and time reports, ingest, stragglers and history at 1,024 ranks this way. One run of
// a study database becomes an N-rank run on `nodes` hosts: its runs row is rewritten, its
// ingested measurements are dropped (the next ingest reads it afresh), and its rank0.sqlite
// is copied N times, each copy with its rank, local rank, world size, host and device
// rewritten, its memory and timings perturbed by a rule of the seed, the rank and the step
// (the same seed, the same files), and the planted outliers below. 1,024 ranks take about a
// second. Not thread-safe (it writes the run's files).
#pragma once

#include <cstdint>
#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::results::testing {

// What a report at scale must find; a rank or node of -1 plants nothing.
struct PlantedOutliers {
  int high_memory_rank = -1;
  double memory_factor = 1.5;  // its GPU and host memory figures, times this
  int late_rank = -1;
  double late_ms = 40;  // it reaches the gradient all-reduce this much later at every step
  int slow_node = -1;
  double slow_node_ms = 15;  // every rank on this node computes and arrives this much later
};

struct RankScale {
  int world_size = 1024, nodes = 64;  // world_size a multiple of nodes
  uint64_t seed = 1;
  PlantedOutliers outliers;
};

// The suites' outliers at `scale` (its world size and nodes): a rank with 1.5 times the
// memory, a rank late by 40 ms at every step and a node slower by 15 ms, each on a
// different node in the middle of the run's.
PlantedOutliers planted_outliers(const RankScale& scale);

// "node007": the host name of node `node` (zero-based, three digits at least).
std::string node_name(int node);

// Rank r runs on node r / (world_size / nodes), as a block launcher places it.
int node_of_rank(int rank, const RankScale& scale);

// Turns run `run_id` of the study database `study_db` (its out_dir, relative to the
// database's folder or absolute, holds the rank0.sqlite of a completed run) into an N-rank
// run.
Status scale_run(const std::string& study_db, const std::string& run_id, const RankScale& scale);

// The shared fixture's recorded GPU study (h200-2026-11-28/lm-study: GPT-2 small on one
// H200, 50 steps) made a weak-scaling study of two points: a run without optimizer sharding
// as recorded (1 GPU) and its repeat at `scale`; the other runs dropped. Copies
// `recorded_dir` into `out_dir` (its results dir) and gives the study database's path.
inline constexpr const char* kRecordedStudy = "lm-gpt2-small-h100";
Result<std::string> write_weak_study_at_scale(const std::string& recorded_dir,
                                              const std::string& out_dir, const RankScale& scale);

}  // namespace scalestudy::results::testing
