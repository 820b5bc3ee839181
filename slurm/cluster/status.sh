#!/usr/bin/env bash
# Shows which daemons of the local SLURM test cluster are running, and sinfo.
# Exit status 0 when every daemon is up, 1 otherwise.
set -euo pipefail

# shellcheck source=common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

main() {
  local daemon pidfile all_up=0
  echo "state dir: $STATE"
  for daemon in $(all_daemons); do
    pidfile=$(pidfile_of "$daemon")
    if pid_alive "$pidfile"; then
      printf '  %-14s up    pid %s\n' "$daemon" "$(cat "$pidfile")"
    else
      printf '  %-14s DOWN\n' "$daemon"
      all_up=1
    fi
  done
  if pid_alive "$(pidfile_of slurmctld)"; then
    sinfo -h -N -o '  %N %T (%c CPUs)' 2>/dev/null || true
    echo "  jobs in queue: $(squeue -h -o %i 2>/dev/null | wc -l)"
  fi
  if [ "$all_up" -eq 0 ] && [ -f "$STATE/env.sh" ]; then echo "source $STATE/env.sh"; fi
  return "$all_up"
}

main "$@"
