# Shared settings and helpers for the scalestudy local SLURM test cluster.
# Sourced by start.sh, stop.sh, status.sh and selftest.sh; not meant to be run.
# shellcheck shell=bash
# The settings below are used by the scripts that source this file.
# shellcheck disable=SC2034

CLUSTER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The SLURM release the cluster runs: 22.05 is this host's (Debian 12's packages); 24.11
# and 26.05 are Debian trixie's and sid's, unpacked into a root of their own under .deps/
# (slurm_root.sh). Each release has its own default state folder and ports, so clusters
# of every release can run side by side.
SLURM_VERSION=${SCALESTUDY_SLURM_VERSION:-22.05}
case $SLURM_VERSION in
  22.05) SLURM_SUITE="" DEFAULT_STATE=/tmp/scalestudy-slurm DEFAULT_PORT_BASE=16800 ;;
  24.11) SLURM_SUITE=trixie DEFAULT_STATE=/tmp/scalestudy-slurm-24.11 DEFAULT_PORT_BASE=18800 ;;
  26.05) SLURM_SUITE=sid DEFAULT_STATE=/tmp/scalestudy-slurm-26.05 DEFAULT_PORT_BASE=15800 ;;
  *)
    printf '[slurm-cluster] ERROR: SCALESTUDY_SLURM_VERSION=%s: not one of 22.05, 24.11, 26.05\n' \
      "$SLURM_VERSION" >&2
    exit 1
    ;;
esac
# One directory holds every piece of state: configs, keys, logs, pid files,
# spool dirs, the MariaDB datadir and the sockets.
STATE=${SCALESTUDY_SLURM_DIR:-$DEFAULT_STATE}
# Non-standard ports so a real SLURM/MariaDB on the same laptop does not clash, all below
# Linux's ephemeral range (32768-60999: a busy host's outgoing connections took a daemon's
# port there) and below 20000 (jobs derive MASTER_PORT from the job id as 20000-32767).
PORT_BASE=${SCALESTUDY_SLURM_PORT_BASE:-$DEFAULT_PORT_BASE}
# The first job id: jobs derive MASTER_PORT from theirs (20000 + (id + step) % 12768), so
# clusters side by side on one host (the test suites run four) start their ids apart.
FIRST_JOB_ID=${SCALESTUDY_SLURM_FIRST_JOB_ID:-1}
# Both go into slurm.conf and the ports' arithmetic as they are: whole numbers above 0.
for setting in "SCALESTUDY_SLURM_PORT_BASE=$PORT_BASE" \
  "SCALESTUDY_SLURM_FIRST_JOB_ID=$FIRST_JOB_ID"; do
  case ${setting#*=} in
    '' | *[!0-9]* | 0*)
      printf '[slurm-cluster] ERROR: %s: not a whole number above 0\n' "$setting" >&2
      exit 1
      ;;
  esac
done
unset setting
# The newest slurmrestd API (data parser) of the release, for start.sh's readiness ping:
# 22.05 serves v0.0.36-38, 24.11 v0.0.40-42, 26.05 v0.0.42-45.
case $SLURM_VERSION in
  22.05) REST_API=v0.0.38 ;;
  24.11) REST_API=v0.0.42 ;;
  26.05) REST_API=v0.0.45 ;;
esac
# The unprivileged account REST jobs run as when no user is named (start.sh): nobody, but
# 26.05 rejects every request from nobody ("rejecting authenticated request from nobody"),
# so there a system account of its own, which start.sh adds.
UNPRIVILEGED_USER=nobody
[ "$SLURM_VERSION" != 26.05 ] || UNPRIVILEGED_USER=scalestudy-jobs
# Where the release's programs and plugins are: the host's, or its root's (whose clients
# and daemons come first on PATH; slurmd is told where its slurmstepd is).
if [ -z "$SLURM_SUITE" ]; then
  SLURM_ROOT=""
  PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
  SLURMSTEPD=/usr/sbin/slurmstepd
else
  SLURM_ROOT=${SCALESTUDY_DEPS_DIR:-$(cd "$CLUSTER_DIR/../.." && pwd)/.deps}/slurm-$SLURM_SUITE
  PLUGIN_DIR=$SLURM_ROOT/usr/lib/x86_64-linux-gnu/slurm-wlm
  SLURMSTEPD=$SLURM_ROOT/scalestudy-bin/slurmstepd
  export PATH=$SLURM_ROOT/scalestudy-bin:$PATH
fi
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

# shellcheck source=slurm_root.sh
source "$CLUSTER_DIR/slurm_root.sh"

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

# rest METHOD PATH [CURL ARGS...]: a request to the cluster's slurmrestd as the user of its
# env.sh (sourced: SCALESTUDY_SLURMRESTD, _USER, _TOKEN), the answer on standard output.
rest() {
  local method=$1 path=$2
  shift 2
  curl -sS --max-time 30 --unix-socket "${SCALESTUDY_SLURMRESTD#unix:}" -X "$method" \
    -H "X-SLURM-USER-NAME: $SCALESTUDY_SLURMRESTD_USER" \
    -H "X-SLURM-USER-TOKEN: $SCALESTUDY_SLURMRESTD_TOKEN" \
    -H 'Content-Type: application/json' "$@" "http://localhost$path"
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
