#!/usr/bin/env bash
# Stops the local SLURM test cluster started by start.sh (run as root).
# Cancels all jobs first, then stops the daemons in reverse start order by their
# pid files: TERM, wait, KILL after a timeout. Idempotent: nothing running is fine.
# State (munge key, database, slurmctld state) is kept; `stop.sh --purge` also
# deletes the state dir.
set -euo pipefail

# shellcheck source=common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

TERM_TIMEOUT=${SCALESTUDY_SLURM_STOP_TIMEOUT:-20}

# stop_daemons DAEMON...: TERM all of them at once (the four slurmd take ~2 s
# each to exit), wait up to TERM_TIMEOUT seconds, then KILL the stragglers.
stop_daemons() {
  local daemon pidfile pid pids=() names=() i deadline=$((SECONDS + TERM_TIMEOUT))
  for daemon in "$@"; do
    pidfile=$(pidfile_of "$daemon")
    if pid_alive "$pidfile"; then
      pid=$(cat "$pidfile")
      log "stopping $daemon (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
      names+=("$daemon")
    fi
  done
  for i in "${!pids[@]}"; do
    while kill -0 "${pids[$i]}" 2>/dev/null; do
      if [ "$SECONDS" -ge "$deadline" ]; then
        log "${names[$i]} (pid ${pids[$i]}) ignored TERM for ${TERM_TIMEOUT}s; sending KILL"
        kill -KILL "${pids[$i]}" 2>/dev/null || true
        break
      fi
      sleep 0.1
    done
  done
  for daemon in "$@"; do rm -f "$(pidfile_of "$daemon")"; done
}

# Jobs keep running in slurmstepd after slurmd exits, so cancel them while
# slurmctld can still do it, and give the steps a moment to finish.
cancel_jobs() {
  pid_alive "$(pidfile_of slurmctld)" || return 0
  local jobs=()
  mapfile -t jobs < <(squeue -h -o %A 2>/dev/null || true)
  [ "${#jobs[@]}" -gt 0 ] || return 0
  log "cancelling ${#jobs[@]} job(s)"
  scancel --full "${jobs[@]}" 2>/dev/null || true
  local deadline=$((SECONDS + 15))
  while [ -n "$(squeue -h -t running,completing -o %i 2>/dev/null)" ] && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.5
  done
}

# descendants PID: prints PID's children, grandchildren, ... (the job's processes).
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

# Any slurmstepd still alive with a file open under our state dir (it inherits
# its slurmd's log file) belongs to this cluster; end it and the job processes
# below it by pid (a killed slurmstepd would leave those behind).
stop_leftover_stepds() {
  local proc pid fd pids=()
  for proc in /proc/[0-9]*; do
    pid=${proc#/proc/}
    [ "$(cat "$proc/comm" 2>/dev/null)" = slurmstepd ] || continue
    for fd in "$proc"/fd/*; do
      if [[ "$(readlink "$fd" 2>/dev/null)" == "$STATE/"* ]]; then
        pids+=("$pid")
        mapfile -t -O "${#pids[@]}" pids < <(descendants "$pid")
        break
      fi
    done
  done
  [ "${#pids[@]}" -gt 0 ] || return 0
  log "stopping leftover job steps (pids ${pids[*]})"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  sleep 1
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

main() {
  [ "$(id -u)" -eq 0 ] || die "run as root"
  if [ ! -d "$STATE" ]; then
    log "nothing to stop ($STATE does not exist)"
    return 0
  fi
  cancel_jobs
  # Reverse start order; daemons on one line stop in parallel.
  stop_daemons slurmrestd
  local nodes=() node
  for node in "${NODES[@]}"; do nodes+=("slurmd-$node"); done
  stop_daemons "${nodes[@]}"
  # Steps survive their slurmd; end ours now that no slurmd can re-adopt them.
  stop_leftover_stepds
  stop_daemons slurmctld
  stop_daemons slurmdbd
  stop_daemons mariadb
  stop_daemons munged
  rm -f "$REST_SOCKET"
  if [ "${1:-}" = --purge ]; then
    log "removing $STATE"
    rm -rf "$STATE"
  fi
  log "stopped"
}

main "$@"
