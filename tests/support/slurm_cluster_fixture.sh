#!/usr/bin/env bash
# CTest fixture slurm_cluster (tests/sched/CMakeLists.txt): starts the local SLURM cluster
# once for every cluster suite, and stops it after the last one.
#   slurm_cluster_fixture.sh start REASON_FILE
#     Starts slurm/cluster/start.sh unless the cluster already answers. When it cannot,
#     writes the start's whole error to REASON_FILE (the suites skip or fail with it) and
#     exits 1 where every prerequisite must be present (CI=true, or root on Debian), else
#     77 (CTest: skipped). Success removes REASON_FILE.
#   slurm_cluster_fixture.sh stop REASON_FILE
#     Stops the cluster if the start step started it (a cluster that was running before
#     CTest is left running).
set -uo pipefail

action=$1
reason_file=$2
cluster=$(cd "$(dirname "$0")/../../slurm/cluster" && pwd)
started_marker=$reason_file.started-here

required() {
  [ "${CI:-}" = true ] || { [ "$(id -u)" -eq 0 ] && [ -f /etc/debian_version ]; }
}

unavailable() {
  printf '%s\n' "$1" >"$reason_file"
  printf 'slurm_cluster: the local SLURM cluster is unavailable:\n%s\n' "$1" >&2
  if required; then
    echo "slurm_cluster: FAILED: the cluster must start here (CI=true, or root on Debian)" >&2
    exit 1
  fi
  echo "slurm_cluster: skipped (the cluster suites skip too)" >&2
  exit 77
}

case $action in
  start)
    rm -f "$reason_file" "$started_marker"
    [ "$(id -u)" -eq 0 ] || unavailable "not root (the cluster's slurmd must run as root)"
    state=${SCALESTUDY_SLURM_DIR:-/tmp/scalestudy-slurm}
    # shellcheck disable=SC1091 # env.sh is written by start.sh
    if [ -f "$state/env.sh" ] && (source "$state/env.sh" && scontrol ping) >/dev/null 2>&1; then
      # start.sh starts whichever of its daemons is down (a slurmd a killed test left
      # stopped, say) and leaves the rest alone.
      echo "slurm_cluster: already running ($state)"
      error=$(mktemp)
      bash "$cluster/start.sh" >/dev/null 2>"$error" ||
        unavailable "start.sh could not start the daemons that were down:
$(cat "$error")"
      rm -f "$error"
      exit 0
    fi
    error=$(mktemp)
    if ! bash "$cluster/start.sh" 2>"$error"; then
      unavailable "start.sh failed:
$(cat "$error")"
    fi
    cat "$error" >&2
    rm -f "$error"
    touch "$started_marker"
    ;;
  stop)
    [ -f "$started_marker" ] || exit 0
    rm -f "$started_marker"
    bash "$cluster/stop.sh"
    ;;
  *)
    echo "usage: $0 start|stop REASON_FILE" >&2
    exit 2
    ;;
esac
