#!/usr/bin/env bash
# Quick end-to-end check of the local SLURM test cluster, for CI and laptops.
# Starts the cluster if it is not fully up (start.sh, needs root), leaves it
# running afterwards, runs every check and exits non-zero if any failed.
# Checks: a simple batch job, a 2-node x 2-task srun job, a throttled job array,
# scancel, sacct states, and slurmrestd (ping, job list, JSON submit of a
# 2-node job, job query, DELETE cancel). The slow TIMEOUT check is left out.
# `cond && pass || fail` is safe here (pass always succeeds); job scripts are
# single-quoted on purpose so their variables expand inside the job.
# shellcheck disable=SC2015,SC2016
set -euo pipefail

# shellcheck source=common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

JOB_WAIT=${SCALESTUDY_SELFTEST_JOB_WAIT:-90}
WORK=""
FAILED=0

cleanup() { [ -z "$WORK" ] || rm -rf "$WORK"; }
trap cleanup EXIT

pass() { printf 'PASS  %s\n' "$*"; }
fail() {
  printf 'FAIL  %s\n' "$*"
  FAILED=1
}

# Final state of a job (first line of sacct -X: the array's task 0 for arrays).
job_states() { sacct -n -X -P -j "$1" -o State 2>/dev/null | awk '{print $1}'; }

# wait_done JOBID COUNT: waits until sacct shows COUNT records for JOBID (array
# tasks reach slurmdbd one by one) all in a final state; prints the states.
wait_done() {
  local id=$1 count=$2 deadline=$((SECONDS + JOB_WAIT)) states
  while :; do
    states=$(job_states "$id")
    if [ -n "$states" ] && [ "$(wc -l <<<"$states")" -ge "$count" ] &&
      ! grep -qE 'PENDING|RUNNING|REQUEUED|COMPLETING|SUSPENDED|RESIZING' <<<"$states"; then
      printf '%s\n' "$states"
      return 0
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      printf '%s\n' "${states:-<no sacct record>}"
      return 1
    fi
    sleep 0.5
  done
}

# expect_states NAME JOBID STATE COUNT: all COUNT records of JOBID end in STATE.
expect_states() {
  local name=$1 id=$2 want=$3 count=$4 states
  if [ -z "$id" ]; then
    fail "$name: no job id (submission failed)"
    return 1
  fi
  if ! states=$(wait_done "$id" "$count"); then
    fail "$name: job $id not finished after ${JOB_WAIT}s (states: $(tr '\n' ' ' <<<"$states"))"
    return 1
  fi
  if [ "$(grep -c "^$want" <<<"$states")" -eq "$count" ] && [ "$(wc -l <<<"$states")" -eq "$count" ]; then
    pass "$name (job $id: $count x $want)"
  else
    fail "$name: job $id states: $(tr '\n' ' ' <<<"$states"), expected $count x $want"
    return 1
  fi
}

ensure_cluster() {
  if ! "$CLUSTER_DIR/status.sh" >/dev/null 2>&1; then
    "$CLUSTER_DIR/start.sh" >/dev/null
  fi
  # shellcheck source=/dev/null
  source "$STATE/env.sh"
  pass "cluster up ($(sinfo -h -o '%D nodes %a' -p debug))"
}

check_simple_job() {
  local id
  id=$(sbatch --parsable -o "$WORK/simple.out" --wrap 'hostname; sleep 1')
  expect_states "sbatch --wrap" "$id" COMPLETED 1 || return 0
  [ -s "$WORK/simple.out" ] && pass "simple job output written" || fail "simple job wrote no output"
}

check_two_node_job() {
  local id lines
  id=$(sbatch --parsable -N2 --ntasks-per-node=2 -o "$WORK/multi.out" \
    --wrap 'srun bash -c "echo \$SLURMD_NODENAME \$SLURM_PROCID"')
  expect_states "-N2 --ntasks-per-node=2 srun" "$id" COMPLETED 1 || return 0
  lines=$(wc -l <"$WORK/multi.out")
  # Each "node" is a slurmd on this host: tell them apart by SLURMD_NODENAME.
  if [ "$lines" -eq 4 ] && [ "$(awk '{print $1}' "$WORK/multi.out" | sort -u | wc -l)" -eq 2 ]; then
    pass "srun printed 4 lines from 2 nodes"
  else
    fail "srun output: $(tr '\n' ';' <"$WORK/multi.out")"
  fi
}

check_array() {
  local id
  id=$(sbatch --parsable --array=0-9%4 -o "$WORK/array_%a.out" --wrap 'echo $SLURM_ARRAY_TASK_ID')
  expect_states "--array=0-9%4" "$id" COMPLETED 10
}

check_scancel() {
  local id deadline=$((SECONDS + 30))
  id=$(sbatch --parsable -o /dev/null --wrap 'sleep 300')
  # Cancel once it runs, the interesting case (a pending cancel is trivial).
  until [ "$(squeue -h -j "$id" -o %T 2>/dev/null)" = RUNNING ] || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.3; done
  scancel "$id"
  expect_states "scancel" "$id" CANCELLED 1
}

# rest_job JSON: a job submit body in the cluster's REST API: v0.0.38 takes the script beside
# the job and the environment as an object; v0.0.40 on the script inside the job, the
# environment as NAME=value words and limits as {set, number}.
rest_job() {
  if [ "$REST_API" = v0.0.38 ]; then
    jq '{script: .script, job: (del(.script) | .environment |= (map(split("=") | {(.[0]): .[1]}) | add)
      | if .nodes then .nodes |= [tonumber, tonumber] else . end)}' <<<"$1"
  else
    jq '{job: (. | if .time_limit then .time_limit |= {set: true, number: .} else . end)}' <<<"$1"
  fi
}

check_rest() {
  local out id body state
  out=$(rest GET "/slurm/$REST_API/ping") || true
  # v0.0.38 says "ping": "UP"; v0.0.40 on "responding": true.
  jq -e '.pings[0].ping == "UP" or .pings[0].responding == true' <<<"$out" >/dev/null 2>&1 &&
    pass "REST ping ($REST_API)" || { fail "REST ping: $out"; return 0; }
  out=$(rest GET "/slurm/$REST_API/jobs") || true
  jq -e '(.errors | length) == 0 and (.jobs | type) == "array"' <<<"$out" >/dev/null &&
    pass "REST GET jobs ($(jq '.jobs | length' <<<"$out") jobs)" || fail "REST GET jobs: $(head -c 300 <<<"$out")"

  # The job runs as $SCALESTUDY_SLURMRESTD_USER, so its directory must be writable by it.
  # PATH as ours: srun must be the cluster's release's.
  body=$(rest_job "$(jq -n --arg dir "$WORK" --arg path "$PATH" '{
    script: "#!/bin/bash\nsrun bash -c '\''echo $SLURMD_NODENAME $SLURM_PROCID $GREETING'\''\n",
    name: "selftest-rest", partition: "debug",
    nodes: "2", tasks: 4, tasks_per_node: 2, time_limit: 5,
    current_working_directory: $dir,
    standard_output: ($dir + "/rest-%j.out"),
    environment: ["PATH=" + $path, "GREETING=hi"]}')")
  out=$(rest POST "/slurm/$REST_API/job/submit" --data-binary "$body") || true
  id=$(jq -r '.job_id // empty' <<<"$out")
  [ -n "$id" ] && pass "REST submit (job $id)" || { fail "REST submit: $out"; return 0; }
  expect_states "REST-submitted 2x2 job" "$id" COMPLETED 1 || return 0
  [ "$(grep -c ' hi$' "$WORK/rest-$id.out" 2>/dev/null)" -eq 4 ] &&
    pass "REST job output has 4 task lines" || fail "REST job output: $(cat "$WORK/rest-$id.out" 2>&1)"
  state=$(rest GET "/slurm/$REST_API/job/$id" | jq -r '.jobs[0].job_state | if type == "array" then .[0] else . end') || true
  [ "$state" = COMPLETED ] && pass "REST GET job/$id: $state" || fail "REST GET job/$id: $state"

  out=$(rest POST "/slurm/$REST_API/job/submit" --data-binary "$(rest_job "$(jq -n --arg dir "$WORK" \
    '{script: "#!/bin/bash\nsleep 300\n", current_working_directory: $dir, environment: ["PATH=/usr/bin:/bin"]}')")") || true
  id=$(jq -r '.job_id // empty' <<<"$out")
  [ -n "$id" ] || { fail "REST submit (sleep): $out"; return 0; }
  out=$(rest DELETE "/slurm/$REST_API/job/$id") || true
  if jq -e '(.errors | length) == 0' <<<"$out" >/dev/null 2>&1; then
    expect_states "REST DELETE job" "$id" CANCELLED 1 || true
  else
    fail "REST DELETE job/$id: $out"
  fi
}

check_sacct_format() {
  local out
  out=$(sacct -n -P -S now-1hours -o JobID,State,ExitCode | head -n 1)
  [ -n "$out" ] && pass "sacct --format=JobID,State,ExitCode ($out)" || fail "sacct returned nothing"
}

main() {
  local start=$SECONDS
  ensure_cluster
  WORK=$(mktemp -d /tmp/scalestudy-selftest.XXXXXX)
  # Sticky world-writable: REST jobs run as an unprivileged user.
  chmod 1777 "$WORK"
  # Each check reports its own PASS/FAIL; keep going so one run shows everything.
  local check
  for check in check_simple_job check_two_node_job check_array check_scancel \
    check_sacct_format check_rest; do
    "$check" || true
  done
  if [ "$FAILED" -ne 0 ]; then
    echo "selftest FAILED after $((SECONDS - start))s (logs: $STATE/log)"
    exit 1
  fi
  echo "selftest passed in $((SECONDS - start))s"
}

main "$@"
