// Site limits on submission and the waves that respect them. SLURM caps how many jobs a user
// may have queued or running (MaxSubmitJobs of the user's association, MaxSubmitPU of its
// QOS; every array task counts as one job) and how large an array may be (MaxArraySize:
// indices stay below it). A submission wave takes, in order, only as many runs as the free
// slots allow and splits arrays to fit; the runs left over wait for a later wave
// (`scalestudy wait` and `run` submit them as jobs finish). Parsing and planning are pure;
// read_wave_capacity asks sacctmgr, scontrol and squeue through a narrow command runner.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sched/partition_times.hpp"

namespace scalestudy::sched {

// The tightest per-user submit limit and where it comes from.
struct SubmitLimit {
  int jobs = 0;
  std::string source;  // "MaxSubmitJobs=2 for user root", "MaxSubmitPU=5 of QOS normal"
};

// Keeps `jobs` (from `source`) when no limit is held yet or it is tighter than the one held.
void keep_tighter(std::optional<SubmitLimit>& tightest, int jobs, const std::string& source);

// MaxArraySize from `scontrol show config`; nothing when the line is missing.
std::optional<int> parse_max_array_size(const std::string& scontrol_config);

// The smallest MaxSubmitJobs of the user's associations (`sacctmgr -n -P show assoc
// where users=U format=MaxSubmitJobs,DefaultQOS,QOS`) and the MaxSubmitPU of their QOS
// (`sacctmgr -n -P show qos format=Name,MaxSubmitPU`); nothing when neither sets one.
std::optional<SubmitLimit> tightest_submit_limit(const std::string& associations,
                                                 const std::string& qos_limits,
                                                 const std::string& user);

// The submit limit a scheduler's refusal names (sbatch's "QOSMaxSubmitJobPerUserLimit",
// "AssocMaxSubmitJobLimit", ...; slurmrestd's generic "job submit limit" text when no other
// limit is named): the job may be submitted once others finish, so it waits instead of
// failing. Nothing for any other error.
std::optional<std::string> submit_limit_refusal(const std::string& message);

// How much a wave may submit: unknown limits leave it unbounded.
struct WaveCapacity {
  std::optional<int> free_slots;      // jobs the user may still queue (array tasks count each)
  std::optional<int> max_array_size;  // tasks per array at most
  std::string limit;                  // the submit limit that bounds free_slots, for messages
  PartitionTimes partitions;          // how long a packed allocation may be, per partition
};

// The groups of run indices (runs of one shape, each a job array when it has two or more
// members) cut into arrays of at most max_array_size tasks, then kept in order while free
// slots last (the group that meets the limit cut to fit). Runs not in the result wait.
std::vector<std::vector<size_t>> fit_wave(const std::vector<std::vector<size_t>>& groups,
                                          const WaveCapacity& capacity);

// Runs a SLURM client command (argv) and returns its stdout, or an error.
using SlurmCommand = std::function<Result<std::string>(const std::vector<std::string>& argv)>;

// The limits for `user`, the partitions' MaxTime and the jobs they have queued now. A limit that
// cannot be read (no accounting database, sacctmgr missing) is left unknown: a refusal is then the
// only signal.
WaveCapacity read_wave_capacity(const SlurmCommand& run, const std::string& user);

}  // namespace scalestudy::sched
