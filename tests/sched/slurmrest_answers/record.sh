#!/usr/bin/env bash
# Records slurmrestd's answers for the slurmrest parsers' tests (slurmrest_dialect_test.cpp):
# against a running local cluster (slurm/cluster/start.sh; source its env.sh first), for
# each API version given, submits a two-node job with two steps, a failing job and a held
# array, and keeps what the backend reads: the submit answers, /jobs, /slurmdb/job/ID,
# /partitions, /qos and /associations, as <release>/<version>/<name>.json beside this script.
#   record.sh v0.0.40 v0.0.41 v0.0.42
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
release=$(sinfo -V | awk '{print $2}' | cut -d. -f1,2)
work=$(mktemp -d /tmp/scalestudy-record.XXXXXX)
chmod 1777 "$work"
# shellcheck source=../../../slurm/cluster/common.sh
source "$here/../../../slurm/cluster/common.sh"  # rest
# keep NAME: standard input, minus what changes from run to run and host to host.
keep() { jq -c 'del(.meta.client)' >"$out/$1.json"; }
settled() {
  local job=$1 deadline=$((SECONDS + 90))
  until sacct -n -X -j "$job" -o State | grep -qE 'COMPLETED|FAILED|CANCELLED'; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 1
  done
}
for api in "$@"; do
  out=$here/$release/$api
  mkdir -p "$out"
  body() {
    jq -n --arg dir "$work" --arg path "$PATH" --arg script "$1" --argjson extra "$2" '{job: ({
      script: $script, name: "record", partition: "debug", nodes: "2", tasks: 4,
      tasks_per_node: 2, time_limit: {set: true, number: 5},
      memory_per_node: {set: true, number: 100}, current_working_directory: $dir,
      standard_output: ($dir + "/record-%j.out"),
      environment: ["PATH=" + $path]} + $extra)}'
  }
  rest POST "/slurm/$api/job/submit" --data-binary "$(body $'#!/bin/bash\nsrun true\nsrun -N1 -n1 true\n' \
    '{"kill_warning_signal": "USR1", "kill_warning_delay": {"set": true, "number": 60}, "kill_warning_flags": ["BATCH_JOB"]}')" |
    keep submit_completing
  completing=$(jq -r .job_id "$out/submit_completing.json")
  rest POST "/slurm/$api/job/submit" --data-binary "$(body $'#!/bin/bash\nexit 3\n' '{"nodes": "1", "tasks": 1, "tasks_per_node": 1}')" |
    keep submit_failing
  failing=$(jq -r .job_id "$out/submit_failing.json")
  rest POST "/slurm/$api/job/submit" --data-binary "$(body $'#!/bin/bash\ntrue\n' '{"nodes": "1", "tasks": 1, "tasks_per_node": 1, "array": "0-2%1", "hold": true}')" |
    keep submit_held_array
  array=$(jq -r .job_id "$out/submit_held_array.json")
  settled "$completing"
  settled "$failing"
  rest GET "/slurm/$api/jobs" | keep jobs
  rest GET "/slurmdb/$api/job/$completing" | keep db_job_completed
  rest GET "/slurmdb/$api/job/$failing" | keep db_job_failed
  rest GET "/slurm/$api/partitions" | keep partitions
  rest GET "/slurmdb/$api/qos" | keep qos
  rest GET "/slurmdb/$api/associations?user=$SCALESTUDY_SLURMRESTD_USER" | keep associations
  rest DELETE "/slurm/$api/job/$array" | keep cancel
done
rest GET /openapi/v3 | jq -c '{info: {version: .info.version}, paths: (.paths | map_values({}))}' >"$here/$release/openapi_paths.json"
rm -rf "$work"
