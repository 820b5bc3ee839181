# Shared settings and helpers for the scalestudy local SLURM test cluster.
# Sourced by start.sh, stop.sh, status.sh and selftest.sh; not meant to be run.
# shellcheck shell=bash
# The settings below are used by the scripts that source this file.
# shellcheck disable=SC2034

CLUSTER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# One directory holds every piece of state: configs, keys, logs, pid files,
# spool dirs, the MariaDB datadir and the sockets.
STATE=${SCALESTUDY_SLURM_DIR:-/tmp/scalestudy-slurm}
# Non-standard ports so a real SLURM/MariaDB on the same laptop does not clash.
PORT_BASE=${SCALESTUDY_SLURM_PORT_BASE:-46800}
DB_PORT=$((PORT_BASE + 6))
CTLD_PORT=$((PORT_BASE + 17))
DBD_PORT=$((PORT_BASE + 19))
NODES=(node1 node2 node3 node4)
# slurmrestd refuses to run as root or SlurmUser, so it runs as this account
# (nobody exists everywhere, so no useradd is needed).
REST_USER=${SCALESTUDY_SLURMRESTD_DAEMON_USER:-nobody}
REST_SOCKET=$STATE/rest/slurmrestd.sock
MUNGE_SOCKET=$STATE/munge/munge.socket
DB_SOCKET=$STATE/mariadb/mysqld.sock
# Clients (sinfo, sbatch, ...) and the daemons all find the generated config here,
# so /etc/slurm is never read or written.
export SLURM_CONF=$STATE/etc/slurm.conf

log() { printf '[slurm-cluster] %s\n' "$*" >&2; }

die() {
  log "ERROR: $*"
  exit 1
}

# Prints the last lines of a log file (if any) to stderr, for failure reports.
log_tail() {
  local file=$1
  if [ -f "$file" ]; then
    log "---- last lines of $file ----"
    tail -n 25 "$file" >&2
    log "----"
  fi
}

# pid_alive PIDFILE: true when PIDFILE names a live process.
pid_alive() {
  local pidfile=$1 pid
  [ -s "$pidfile" ] || return 1
  pid=$(tr -d ' \n' <"$pidfile")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

pidfile_of() {
  case "$1" in
    munged) echo "$STATE/munge/munged.pid" ;;
    mariadb) echo "$STATE/run/mariadb.pid" ;;
    slurmdbd) echo "$STATE/run/slurmdbd.pid" ;;
    slurmctld) echo "$STATE/run/slurmctld.pid" ;;
    slurmd-*) echo "$STATE/run/$1.pid" ;;
    slurmrestd) echo "$STATE/run/slurmrestd.pid" ;;
    *) die "unknown daemon $1" ;;
  esac
}

logfile_of() {
  case "$1" in
    munged) echo "$STATE/munge/munged.log" ;;
    *) echo "$STATE/log/$1.log" ;;
  esac
}

# All daemons in start order (stop uses the reverse).
all_daemons() {
  local node
  echo munged mariadb slurmdbd slurmctld
  for node in "${NODES[@]}"; do echo "slurmd-$node"; done
  echo slurmrestd
}
