#include "orchestrator/sched/packed_allocation.hpp"

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>

#include "harness/core/exit_codes.hpp"
#include "orchestrator/common/failure_class.hpp"
#include "orchestrator/common/safe_files.hpp"
#include "orchestrator/sched/job_arrays.hpp"
#include "orchestrator/sched/packed_run_marks.hpp"
#include "orchestrator/sched/packing_plan.hpp"
#include "orchestrator/sched/render/job_script.hpp"
#include "orchestrator/sched/render/shell_quote.hpp"
#include "orchestrator/sched/slurm_states.hpp"
#include "orchestrator/study/scalar_values.hpp"

namespace scalestudy::sched {
namespace {

constexpr char kPackedSeparator = '+';

// The directives of the largest run that do not size the allocation (partition, account,
// cpus, GPUs, memory, ...); nodes, tasks, time, signal and the nodes left out are the
// packed job's own.
std::vector<std::string> shared_directives(const std::string& script_path) {
  static const std::set<std::string> kSizing = {
      "--nodes",  "-N", "--ntasks-per-node", "--time", "-t", "--signal",
      "--ntasks", "-n", "--exclude",         "-x"};
  std::vector<std::string> kept;
  for (const std::string& directive : script_allocation_directives(script_path)) {
    if (kSizing.count(directive.substr(0, directive.find('='))) == 0) kept.push_back(directive);
  }
  return kept;
}

// srun's sizing of one run's step; the torchrun-style launcher starts one task per node. A
// run that states its memory gets it per node for its step, so steps side by side on one
// allocation cannot starve each other's nodes.
std::string step_sizing(const RunSpec& spec) {
  const int per_node = spec.launcher == LauncherKind::kTorchrun ? 1 : spec.tasks_per_node;
  std::string sizing = "--nodes=" + std::to_string(spec.nodes) +
                       " --ntasks=" + std::to_string(spec.nodes * per_node) +
                       " --ntasks-per-node=" + std::to_string(per_node);
  if (spec.slurm.memory_mb > 0) sizing += " --mem=" + std::to_string(spec.slurm.memory_mb) + "M";
  return sizing;
}

uint64_t seed_of(const std::vector<const PreparedRun*>& runs) {
  std::vector<const RunSpec*> specs;
  for (const PreparedRun* run : runs) specs.push_back(&run->spec);
  return pack_seed(specs);
}

// One bash array assignment: name=( 'a' 'b' ... ).
std::string bash_array(const std::string& name, const std::vector<std::string>& values) {
  std::string text = name + "=(\n";
  for (const auto& value : values) text += "  " + scalestudy::shell_quote(value) + "\n";
  return text + ")\n";
}

// The list scheduler over the runs, in their order: a run starts as one step as soon as
// enough hosts are free (at most max_running steps at once: 1 for the serial policy), on the
// first free hosts from its own first host on, rotated through the allocation; a step's end
// frees its hosts (wait -n). A run that does not fit yet waits while later, smaller ones
// fill the gaps (largest first, for the concurrent policy).
constexpr char kStepLoop[] =
    R"sh(mapfile -t hosts < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
wrapper_started_s=$(date +%s)
out_of_time=0
# The time limit is near: the running steps checkpoint (SIGTERM, exit 75), none starts.
trap 'out_of_time=1; scancel --signal=TERM "$SLURM_JOB_ID"' USR1
# mark: the path of run $1's mark $2 (packed_run_marks.hpp), written as things happen:
# recorded and dropped of the job; started, finished and not-reached of this execution of
# it (step_mark), each execution its own (SLURM_RESTART_COUNT: 1 after the first requeue),
# so that a requeued job's marks are not read as its earlier execution's.
mark() { echo "${run_dirs[$1]}/packed-${SLURM_JOB_ID}.$2"; }
execution_of() { ((${1:-0} > 0)) && echo ".r$1"; }
step_mark() { echo "${run_dirs[$1]}/packed-${SLURM_JOB_ID}$(execution_of "${SLURM_RESTART_COUNT:-0}").$2"; }
# The job's end in seconds since the epoch: SLURM_JOB_END_TIME where SLURM sets it, else
# squeue's (tried three times, each bounded: it may be slow, or missing from the job's
# PATH), else the job's start and its limit; nothing when none is known.
job_end_s() {
  local end tries
  if [[ "${SLURM_JOB_END_TIME:-}" =~ ^[0-9]+$ ]]; then echo "$SLURM_JOB_END_TIME"; return; fi
  for tries in 1 2 3; do
    end=$(timeout 10 squeue -h -j "$SLURM_JOB_ID" -o %e 2>/dev/null)
    if [[ "$end" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T ]] && date -d "$end" +%s 2>/dev/null; then
      return
    fi
    sleep 1
  done
  ((limit_s > 0)) && echo $((${SLURM_JOB_START_TIME:-$wrapper_started_s} + limit_s))
}
# The wrapper's own alarm, stop_lead_s before the job's end: SLURM's --signal may come up to
# a minute early, which would stop a short allocation soon after it starts. No end known:
# no alarm (the limit still ends the job; its runs not started cost no attempt). Only a
# sleep that ran out rings it: a requeue's SIGTERM may kill the sleep before its shell,
# and the alarm's scancel, retried while SLURM requeues the job, would stop the job's
# next run.
timer=""
end_s=$(job_end_s)
if [ -n "$end_s" ]; then
  left_s=$((end_s - $(date +%s) - stop_lead_s))
  (sleep $((left_s > 0 ? left_s : 0)) && kill -USR1 $$) &
  timer=$!
else
  echo "the job's end is unknown (no SLURM_JOB_END_TIME, squeue or time limit): no stop alarm"
fi
busy=()
for ((n = 0; n < ${#hosts[@]}; n++)); do busy[n]=0; done
declare -A hosts_of_step=()
running=0
# picked: run $1's hosts, the first free ones from its first host on; false when too few.
pick() {
  local i=$1 k n
  picked=()
  for ((k = 0; k < ${#hosts[@]} && ${#picked[@]} < run_nodes[i]; k++)); do
    n=$(((first_node[i] + k) % ${#hosts[@]}))
    ((busy[n])) || picked+=("$n")
  done
  ((${#picked[@]} == run_nodes[i]))
}
# Stops the steps of run $1 (its script runs as process $2) once `scalestudy cancel` drops
# it, looking every 2 s: the wrapper cancels its own steps for every backend, because
# slurmrestd cannot cancel one step (DELETE .../job/J.S ends the whole job).
stop_when_dropped() {
  local i=$1 script=$2 steps told=0
  while kill -0 "$script" 2>/dev/null; do
    if [ -e "$(mark "$i" dropped)" ]; then
      steps=$(scontrol -o show step "$SLURM_JOB_ID" 2>/dev/null | awk -v name="Name=${run_names[i]}" \
        '{ for (f = 2; f <= NF; f++) if ($f == name) { sub(/^StepId=/, "", $1); print $1 } }')
      if [ -n "$steps" ]; then
        ((told)) || echo "step $i: run ${run_names[i]} was cancelled: stopping" $steps
        told=1
        scancel $steps
      fi
    fi
    sleep 2
  done
}
# Whether this execution of the job still holds its allocation. A requeue (a node failure,
# scontrol requeue) fails a step the wrapper starts meanwhile at once with 1 ("Job is pending
# execution"): the requeue stopped it, not its run. True when scontrol cannot tell.
still_this_execution() {
  local shown
  shown=$(scontrol -o show job "$SLURM_JOB_ID" 2>/dev/null) || return 0
  [[ "$shown" == *" JobState=RUNNING "* && "$shown" == *" Restarts=${SLURM_RESTART_COUNT:-0} "* ]]
}
# Starts run $1 as a step on the picked hosts, marked started first and finished with its
# exit status as it ends (unmarked when the job was requeued meanwhile, so that it runs
# again); false (nothing started) when it was dropped meanwhile: a
# `scalestudy cancel` writes its dropped mark, and a run dropped after its start is stopped
# by stop_when_dropped.
start() {
  local i=$1 n names=()
  # Unmarked, a step a requeue hides would count as never started: not run at all instead.
  if ! : >"$(step_mark "$i" started)"; then
    echo "step $i: run ${run_names[i]}: cannot write its mark $(step_mark "$i" started): not run here"
    return 1
  fi
  if [ -e "$(mark "$i" dropped)" ]; then
    echo "step $i: run ${run_names[i]} was cancelled: not run here"
    return 1
  fi
  # In ascending host order, as srun places the ranks: rank 0 (MASTER_ADDR) comes first.
  for n in "${picked[@]}"; do busy[n]=1; done
  for ((n = 0; n < ${#hosts[@]}; n++)); do
    [[ " ${picked[*]} " == *" $n "* ]] && names+=("${hosts[n]}")
  done
  local step_nodes finished
  step_nodes=$(IFS=,; echo "${names[*]}")
  finished=$(step_mark "$i" finished)
  echo "step $i: run ${run_names[i]} on $step_nodes"
  {
    SCALESTUDY_STEP_NODES="$step_nodes" SCALESTUDY_STEP_INDEX=$i \
      SCALESTUDY_STEP_OPTIONS="${step_sizing[i]} --nodelist=$step_nodes --exclusive --job-name=${run_names[i]}" \
      /bin/bash "${run_scripts[i]}" >>"${run_dirs[i]}/slurm-${SLURM_JOB_ID}.out" 2>&1 &
    local script=$! status watcher
    stop_when_dropped "$i" "$script" &
    watcher=$!
    wait "$script"
    status=$?
    kill "$watcher" 2>/dev/null
    if ((status != 0)) && ! still_this_execution; then
      echo "step $i: run ${run_names[i]} ended with $status as this job was requeued: it runs again"
    else
      { echo $status >"$finished.tmp" && mv "$finished.tmp" "$finished"; } ||
        echo "step $i: run ${run_names[i]} ended with $status; cannot write its mark $finished"
    fi
  } &
  hosts_of_step[$!]="${picked[*]}"
  running=$((running + 1))
}
# Waits for a step to end and frees the hosts of every step that has; returns early on USR1
# (its steps go on until they have checkpointed, and a later call waits for them). Steps
# are found ended by kill -0 as well: wait -n may not name one (bash before 5.1 has no -p,
# and a step bash has already reaped is never returned), so no step's hosts stay held.
reap() {
  local ended="" pid n freed=0
  wait -n -p ended 2>/dev/null
  local status=$?
  for pid in "${!hosts_of_step[@]}"; do
    if [ "$pid" = "$ended" ] || ! kill -0 "$pid" 2>/dev/null; then
      for n in ${hosts_of_step[$pid]}; do busy[n]=0; done
      unset "hosts_of_step[$pid]"
      running=$((running - 1))
      freed=1
    fi
  done
  # Nothing ended and no signal came: do not spin on a wait that returns at once.
  ((freed || status > 128)) || sleep 1
}
# Whether run $1 is this job's: 0 when the study database recorded it here (its mark,
# written by the submitter right after the record, or by any later submit or wait that
# finds the record) and in no later allocation; 1 when it is not (its submitter could not
# record it, it was cancelled, or a later allocation holds it: a later submit took it after
# its submitter died before recording it here, or, this job requeued, the study database
# settled it and submitted it again); 2 while unknown; 3 when this job cannot write in its
# folder (immutable, another user's): its submitter could not mark it recorded there either
# and failed it, and this job could not mark it started.
known_here() {
  local mark job
  [ -e "$(mark "$1" dropped)" ] && return 1
  [ -w "${run_dirs[$1]}" ] || return 3
  for mark in "${run_dirs[$1]}"/packed-*.recorded; do
    job=${mark##*/packed-}
    job=${job%.recorded}
    [[ "$job" =~ ^[0-9]+$ ]] && ((job > SLURM_JOB_ID)) && return 1
  done
  [ -e "$(mark "$1" recorded)" ] && return 0
  return 2
}
# The status run $1's step ended with in the newest earlier execution of this job that
# marked it finished; false when none did.
finished_before() {
  local n=${SLURM_RESTART_COUNT:-0} file
  while ((n-- > 0)); do
    file="${run_dirs[$1]}/packed-${SLURM_JOB_ID}$(execution_of "$n").finished"
    [ -e "$file" ] && cat "$file" && return 0
  done
  return 1
}
# Whether run $1 is to run in this job as it starts: every run the first time; after a
# requeue, only one the requeue stopped (no finished mark, a signal's status, 143, or the
# checkpointed one its SIGTERM gives: it resumes). One that completed is not run again, nor
# one that ended on its own before the requeue (an exit status, or a signal the program
# raises itself: SEGV, ABRT, FPE, ILL, BUS, TRAP, SYS): the study database settles it from
# its step or its mark, and may have submitted it again.
runs_again() {
  local status
  status=$(finished_before "$1") || return 0
  if [ "$status" = 0 ]; then
    echo "step $1: run ${run_names[$1]} completed in this job before its requeue: not run again"
    return 1
  fi
  if [[ "$status" =~ ^[0-9]+$ ]] && ((status < 128 && status != checkpointed_status)); then
    echo "step $1: run ${run_names[$1]} ended with status $status before this job's requeue: not run again"
    return 1
  fi
  case $status in
    132 | 133 | 134 | 135 | 136 | 139 | 159)
      echo "step $1: run ${run_names[$1]} died of its own signal (status $status) before this job's requeue: not run again"
      return 1
      ;;
  esac
  return 0
}
# Recorded runs start as they fit. A run not yet recorded waits for its record at most
# record_wait_s (a submitter stopped for a while records it late; a dead one never does),
# then is left unstarted for a later allocation, at no attempt's cost. In a job SLURM
# requeued (a node failure, scontrol requeue), a run the requeue killed runs again (SIGTERM
# reaches the step's shell after its srun, which then marks the step finished with status
# 143); the others do not (runs_again).
record_wait_s=${SCALESTUDY_PACKED_RECORD_WAIT_S:-300}
waiting=()
for i in "${!run_scripts[@]}"; do
  runs_again "$i" && waiting+=("$i")
done
told=0
while ((${#waiting[@]} > 0)) && [ "$out_of_time" = 0 ]; do
  left=()
  started=0
  unknown=0
  for i in "${waiting[@]}"; do
    known_here "$i"
    case $? in
      1) echo "step $i: run ${run_names[i]} is not this job's: not run here" ;;
      3) echo "step $i: run ${run_names[i]}: cannot write in its folder ${run_dirs[i]}: not run here" ;;
      2)
        if (($(date +%s) - wrapper_started_s < record_wait_s)); then
          unknown=$((unknown + 1))
          left+=("$i")
        else
          echo "step $i: run ${run_names[i]} has no record after $record_wait_s s: not run here"
          : >"$(step_mark "$i" not-reached)"
        fi
        ;;
      *)
        if [ "$out_of_time" = 0 ] && ((running < max_running)) && pick "$i"; then
          start "$i" && started=1
        else
          left+=("$i")
        fi
        ;;
    esac
  done
  waiting=("${left[@]}")
  if ((unknown > 0 && !told)); then
    echo "waiting for the study database to record $unknown of ${#run_scripts[@]} runs"
    told=1
  fi
  if ((running > 0)); then
    ((${#waiting[@]} == 0)) || reap
  elif ((started == 0)); then
    ((unknown > 0)) || break  # nothing runs and nothing fits: sized for the largest run
    sleep 1
  fi
done
# The runs the time limit left: never started, so their next allocation costs no attempt.
# Marked before the running steps are waited for: one slow to stop may outlast the job,
# which SLURM then kills.
if [ "$out_of_time" = 1 ]; then
  for i in "${waiting[@]}"; do : >"$(step_mark "$i" not-reached)"; done
fi
while ((running > 0)); do reap; done
[ -n "$timer" ] && kill "$timer" 2>/dev/null
exit 0
)sh";

}  // namespace

std::vector<const PreparedRun*> shuffled_runs(std::vector<const PreparedRun*> order, uint64_t seed,
                                              bool largest_first) {
  std::mt19937_64 generator(seed);
  std::shuffle(order.begin(), order.end(), generator);
  if (largest_first) {
    std::stable_sort(order.begin(), order.end(), [](const PreparedRun* a, const PreparedRun* b) {
      return a->spec.nodes > b->spec.nodes;
    });
  }
  return order;
}

std::string packed_wrapper_script(const std::vector<const PreparedRun*>& runs,
                                  const std::vector<std::string>& directives, uint64_t seed,
                                  bool concurrent, int time_limit_s, int stop_lead_s,
                                  const std::string& job_name, const std::string& output_pattern) {
  std::string script = "#!/bin/bash\n";
  script +=
      concurrent
          ? "# scalestudy packed allocation: each run a job step on nodes of its own, side by\n"
            "# side as hosts are free, largest first, then in the order below (shuffled\n"
            "# with seed " +
                std::to_string(seed) + ").\n"
          : "# scalestudy packed allocation: each run a job step on nodes of its own, one after\n"
            "# another in the order below (shuffled with seed " +
                std::to_string(seed) + ").\n";
  script += "#SBATCH --job-name=" + job_name + "\n";
  script += "#SBATCH --output=" + output_pattern + "\n";
  for (const auto& directive : directives) script += "#SBATCH " + directive + "\n";
  std::vector<std::string> scripts, dirs, names, sizing, nodes, first_nodes;
  int allocation_nodes = 1;
  for (const PreparedRun* run : runs)
    allocation_nodes = std::max(allocation_nodes, run->spec.nodes);
  int next_node = 0;
  for (const PreparedRun* run : runs) {
    scripts.push_back(run->script_path);
    dirs.push_back(run->out_dir);
    names.push_back(run->spec.run_id);
    sizing.push_back(step_sizing(run->spec));
    nodes.push_back(std::to_string(run->spec.nodes));
    first_nodes.push_back(std::to_string(next_node));
    next_node = (next_node + run->spec.nodes) % allocation_nodes;
  }
  script += "export SCALESTUDY_PACK_SEED=" + std::to_string(seed) + "\n";
  script += "limit_s=" + std::to_string(time_limit_s) + "\n";
  script += "stop_lead_s=" + std::to_string(stop_lead_s) + "\n";
  script += "checkpointed_status=" + std::to_string(exit_codes::kCheckpointed) + "\n";
  script += "max_running=" + std::to_string(concurrent ? allocation_nodes : 1) + "\n";
  script += bash_array("run_scripts", scripts) + bash_array("run_dirs", dirs) +
            bash_array("run_names", names) + bash_array("step_sizing", sizing) +
            bash_array("run_nodes", nodes) + bash_array("first_node", first_nodes);
  return script + kStepLoop;
}

Result<BatchJob> write_packed_job(const std::vector<const PreparedRun*>& runs,
                                  const std::string& script_dir, bool concurrent,
                                  int time_minutes) {
  std::string dir = script_dir.empty()
                        ? std::filesystem::path(runs.front()->out_dir).parent_path().string()
                        : script_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return Status::error(dir + ": " + error.message());
  const PreparedRun* largest = runs.front();
  int tasks_per_node = 1;
  for (const PreparedRun* run : runs) {
    if (run->spec.nodes > largest->spec.nodes) largest = run;
    tasks_per_node = std::max(tasks_per_node, run->spec.tasks_per_node);
  }
  std::vector<std::string> directives = {"--nodes=" + std::to_string(largest->spec.nodes),
                                         "--ntasks-per-node=" + std::to_string(tasks_per_node)};
  if (time_minutes > 0) directives.push_back("--time=" + format_time_limit(time_minutes));
  for (auto& directive : shared_directives(largest->script_path)) {
    directives.push_back(std::move(directive));
  }
  // A retry leaves out the nodes its run failed on: no step of the allocation gets them.
  std::vector<std::string> excluded;
  for (const PreparedRun* run : runs) {
    for (const std::string& node : run->spec.slurm.exclude_nodes) {
      if (std::find(excluded.begin(), excluded.end(), node) == excluded.end()) {
        excluded.push_back(node);
      }
    }
  }
  if (!excluded.empty()) {
    std::string list;
    for (const std::string& node : excluded) list += (list.empty() ? "" : ",") + node;
    directives.push_back("--exclude=" + list);
  }
  const uint64_t seed = seed_of(runs);
  std::ostringstream stem;
  stem << "packed-" << std::hex << seed;
  const std::string path = dir + "/" + stem.str() + ".sbatch";
  std::vector<const PreparedRun*> order = shuffled_runs(runs, seed, concurrent);
  const std::string script = packed_wrapper_script(
      order, directives, seed, concurrent, time_minutes * 60,
      term_signal_lead_seconds(time_minutes), runs.front()->spec.study + "-packed",
      dir + "/" + stem.str() + "-%j.out");
  if (Status written = common::write_file_replacing(path, script, 0644); !written) {
    return written.with_context("writing the packed job script");
  }
  BatchJob job;
  job.script_path = path;
  job.runs = std::move(order);
  job.is_packed = true;
  return job;
}

void report_packed_runs(const BatchJob& job, const std::string& allocation_id,
                        const SubmitCallbacks& callbacks, std::vector<Submission>& submissions) {
  for (const PreparedRun* run : job.runs) {
    Submission submission{run->spec.run_id, packed_run_job_id(allocation_id, run->spec.run_id)};
    if (callbacks.launching && !callbacks.launching(submission)) {
      // Not recorded, so never to run here: the wrapper need not wait for it (without the
      // mark it waits for a record that never comes, then leaves the run: a delay only).
      static_cast<void>(mark_packed_run_dropped(run->out_dir, submission.job_id));
      continue;
    }
    const Status marked = mark_packed_run_recorded(run->out_dir, submission.job_id);
    if (callbacks.submitted) callbacks.submitted(submission);
    if (!marked && callbacks.finished) {
      // Recorded but never to start: the wrapper starts a run on its mark only, and would
      // hand the attempt back as not reached, again with every allocation. A failure
      // instead, which counts an attempt and says why; the dropped mark, where it can be
      // written, spares the wrapper its wait for the record.
      static_cast<void>(mark_packed_run_dropped(run->out_dir, submission.job_id));
      callbacks.finished(submission, packed_run_unmarked(marked));
    }
    submissions.push_back(std::move(submission));
  }
}

std::string packed_run_job_id(const std::string& allocation_id, const std::string& run_id) {
  return allocation_id + kPackedSeparator + run_id;
}

bool is_packed_job_id(const std::string& job_id) {
  return job_id.find(kPackedSeparator) != std::string::npos;
}

std::string packed_allocation_id(const std::string& job_id) {
  return job_id.substr(0, job_id.find(kPackedSeparator));
}

std::vector<std::string> packed_allocation_ids(const std::vector<std::string>& job_ids) {
  std::set<std::string> allocations;
  for (const auto& job_id : job_ids) allocations.insert(packed_allocation_id(job_id));
  return {allocations.begin(), allocations.end()};
}

std::vector<std::string> packed_sacct_argv(const std::vector<std::string>& job_ids) {
  std::string joined;
  for (const auto& id : packed_allocation_ids(job_ids)) joined += (joined.empty() ? "" : ",") + id;
  return {"sacct", "-n",   "--parsable2",
          "-j",    joined, "--format=JobID,JobName,State,ExitCode,NodeList,Submit,Start,End"};
}

std::map<std::string, AllocationRecord> parse_packed_sacct(const std::string& sacct_output) {
  std::map<std::string, AllocationRecord> allocations;
  std::stringstream lines(sacct_output);
  for (std::string line; std::getline(lines, line);) {
    auto fields = parsable_fields(line);
    if (fields.size() < 8) continue;
    const std::string& id = fields[0];
    const size_t dot = id.find('.');
    if (dot == std::string::npos) {
      allocations[id].state = fields[2];
      allocations[id].exit_code = parse_slurm_exit_code(fields[3]);
      allocations[id].queued_at = sacct_value(fields[5]);
    } else if (std::isdigit(static_cast<unsigned char>(id[dot + 1]))) {  // not .batch/.extern
      allocations[id.substr(0, dot)].steps.push_back(
          {id, fields[1], fields[2], parse_slurm_exit_code(fields[3]), sacct_value(fields[4]),
           sacct_value(fields[6]), sacct_value(fields[7])});
    }
  }
  return allocations;
}

std::map<std::string, JobStatus> packed_run_states(
    const std::map<std::string, AllocationRecord>& allocations,
    const std::vector<std::string>& job_ids) {
  std::map<std::string, JobStatus> states;
  for (const auto& job_id : job_ids) {
    const std::string allocation_id = packed_allocation_id(job_id);
    auto allocation = allocations.find(allocation_id);
    if (allocation == allocations.end() || allocation->second.state.empty()) continue;
    const AllocationRecord& job = allocation->second;
    const std::string run_id = job_id.substr(allocation_id.size() + 1);
    const StepRecord* step = nullptr;
    for (const StepRecord& candidate : job.steps) {
      if (candidate.name == run_id) step = &candidate;
    }
    std::optional<JobStatus> status;
    if (step != nullptr) {
      status = make_slurm_status(step->state, step->exit_code, "");
      if (status && is_terminal(status->state) && status->state != JobState::kCompleted &&
          (job.state.rfind("REQUEUE", 0) == 0 || job.state == "PENDING")) {
        // SLURM requeued the allocation (a node failure, scontrol requeue) and still lists
        // the steps the requeue ended, beside the allocation REQUEUED or already PENDING
        // again (an allocation that never ran has no steps): the run starts again when the
        // allocation does, or, had it finished, settles by its mark when the allocation ends.
        status =
            JobStatus{JobState::kPending, std::nullopt,
                      "allocation " + allocation_id + " was requeued; the run starts again in it"};
      } else if (status) {
        if (status->state == JobState::kCancelled && job.state == "NODE_FAIL") {
          // SLURM cancels the steps still running when a node of the allocation fails
          // (sacct: "CANCELLED by 0"): the node's end, not a person's, and its retry leaves
          // the step's nodes out.
          status = JobStatus{JobState::kNodeFail, std::nullopt,
                             "its step " + step->step_id + " was cancelled as allocation " +
                                 allocation_id + " ended NODE_FAIL"};
        }
        status->placement = {step->step_id, step->node_list, job.queued_at, step->started_at,
                             step->ended_at};
      }
    } else if ((status = make_slurm_status(job.state, std::nullopt, ""))) {
      if (!is_terminal(status->state)) {
        status->state = JobState::kPending;  // the allocation is queued, or runs others first
        status->reason = "waiting for its turn in packed allocation " + allocation_id;
      } else {
        // The wrapper stopped near the limit: the run goes into the next allocation.
        if (status->state == JobState::kCompleted) status->state = JobState::kCancelled;
        status->reason = "in allocation " + allocation_id + ", which ended " + job.state +
                         " before this run's step started";
        // slurmd could not set the job up (its output file, its working folder): the
        // failure class's evidence (common/failure_class.hpp).
        if (job.exit_code == common::kSlurmSetupExitCode) {
          status->reason += " (sacct 0:53: the allocation failed before its first step)";
        }
        status->exit_code.reset();
        status->never_started = true;
      }
    }
    if (status) states[job_id] = *status;
  }
  return states;
}

}  // namespace scalestudy::sched
