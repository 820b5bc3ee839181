#!/usr/bin/env bash
# Starts a real local SLURM cluster on loopback (run as root), of release 22.05 (this host's
# packages) or, with SCALESTUDY_SLURM_VERSION, 24.11 or 26.05 (slurm_root.sh):
#   munged, MariaDB, slurmdbd, slurmctld, 4 slurmd "nodes" (node1..node4 on this
#   host) and slurmrestd on a unix socket.
# Everything lives under $SCALESTUDY_SLURM_DIR (default /tmp/scalestudy-slurm).
# Idempotent: daemons already running are left alone, so a second run is a no-op.
# `start.sh --unpack-only` only unpacks a newer release's root (slurm_root.sh).
# Starts are serialised by a lock ($STATE.lock), so two at once cannot race for the keys,
# the datadir or the ports. A start that fails stops every daemon of the cluster again
# (stop.sh) after printing its error and the daemons' log tails, so the next start begins
# from a clean slate. On success it writes $STATE/env.sh (source it) and prints its contents.
set -euo pipefail

# shellcheck source=common.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

# How long to wait for any single readiness condition.
WAIT_SECONDS=${SCALESTUDY_SLURM_WAIT:-60}
# The user whose JWT goes into env.sh: jobs submitted through slurmrestd run as
# this user. It cannot be root: `scontrol token username=root` fails ("Invalid
# user id"). Default: the user behind sudo (laptop), else the release's unprivileged account
# (CI running as root; the directories of its REST jobs must be writable by it).
TOKEN_USER=${SCALESTUDY_SLURM_USER:-${SUDO_USER:-$UNPRIVILEGED_USER}}
[ "$TOKEN_USER" = root ] && TOKEN_USER=$UNPRIVILEGED_USER
# Users that get an association in slurmdbd (jobs of users without one are
# rejected because AccountingStorageEnforce=associations).
ACCOUNT_USERS=(root "$TOKEN_USER")
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then ACCOUNT_USERS+=("$SUDO_USER"); fi

# ---------------------------------------------------------------- helpers ----

# wait_until DAEMONS DESCRIPTION COMMAND...: polls COMMAND until it succeeds.
# DAEMONS is a space-separated list (may be empty) of daemons that must stay
# alive meanwhile; fails loudly with the log tail when one dies or time runs out.
wait_until() {
  local daemons=$1 what=$2 deadline=$((SECONDS + WAIT_SECONDS)) daemon
  shift 2
  until "$@" >/dev/null 2>&1; do
    for daemon in $daemons; do
      if ! pid_alive "$(pidfile_of "$daemon")"; then
        log_tail "$(logfile_of "$daemon")"
        die "$daemon died while waiting for: $what"
      fi
    done
    if [ "$SECONDS" -ge "$deadline" ]; then
      for daemon in $daemons; do log_tail "$(logfile_of "$daemon")"; done
      die "timed out after ${WAIT_SECONDS}s waiting for: $what"
    fi
    sleep 0.3
  done
}

# Starts a self-daemonizing program unless its pid file names a live process,
# then waits for the pid file. Output goes to the daemon's log.
start_forking_daemon() {
  local daemon=$1 pidfile
  shift
  pidfile=$(pidfile_of "$daemon")
  if pid_alive "$pidfile"; then
    log "$daemon already running (pid $(cat "$pidfile"))"
    return 0
  fi
  rm -f "$pidfile"
  log "starting $daemon"
  # 9>&-: the daemon must not inherit (and so hold) start.sh's lock.
  if ! "$@" >>"$(logfile_of "$daemon")" 2>&1 9>&-; then
    log_tail "$(logfile_of "$daemon")"
    die "$daemon failed to start: $*"
  fi
  # A daemon that dies right after forking never leaves a live pid: give up after the
  # full wait (on a loaded 2-core host writing one can take longer than a few seconds).
  local deadline=$((SECONDS + WAIT_SECONDS))
  until pid_alive "$pidfile"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log_tail "$(logfile_of "$daemon")"
      die "$daemon did not come up (no live pid in $pidfile)"
    fi
    sleep 0.2
  done
}

# Starts a program that stays in the foreground: detached with setsid (so it
# survives this script and its terminal) and its pid recorded by us.
start_foreground_daemon() {
  local daemon=$1 pidfile
  shift
  pidfile=$(pidfile_of "$daemon")
  if pid_alive "$pidfile"; then
    log "$daemon already running (pid $(cat "$pidfile"))"
    return 0
  fi
  log "starting $daemon"
  setsid "$@" </dev/null >>"$(logfile_of "$daemon")" 2>&1 9>&- &
  echo "$!" >"$pidfile"
}

# render_template IN OUT: replaces @VAR@ placeholders with this script's values.
render_template() {
  local in=$1 out=$2 tmp
  tmp=$(mktemp "$out.XXXXXX")
  sed -e "s|@STATE@|$STATE|g" \
    -e "s|@PLUGIN_DIR@|$PLUGIN_DIR|g" \
    -e "s|@CTLD_PORT@|$CTLD_PORT|g" \
    -e "s|@DBD_PORT@|$DBD_PORT|g" \
    -e "s|@DB_PORT@|$DB_PORT|g" \
    -e "s|@FIRST_JOB_ID@|$FIRST_JOB_ID|g" \
    -e "s|@DB_PASS@|$(cat "$STATE/etc/db.pass")|g" \
    -e "s|@SLURMD_PORT_1@|$((PORT_BASE + 21))|g" \
    -e "s|@SLURMD_PORT_2@|$((PORT_BASE + 22))|g" \
    -e "s|@SLURMD_PORT_3@|$((PORT_BASE + 23))|g" \
    -e "s|@SLURMD_PORT_4@|$((PORT_BASE + 24))|g" \
    "$in" >"$tmp"
  if grep -q '@[A-Z_0-9]*@' "$tmp"; then
    rm -f "$tmp"
    die "unfilled placeholder in $in"
  fi
  mv "$tmp" "$out"
}

random_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# ------------------------------------------------------------------ steps ----

check_prerequisites() {
  [ "$(id -u)" -eq 0 ] || die "run as root (slurmd must be root to launch jobs as users)"
  local tool
  for tool in munged mungekey munge unmunge mariadbd mariadb-install-db mariadb slurmdbd slurmctld \
    slurmd slurmrestd sacctmgr sinfo sacct scontrol curl setpriv; do
    command -v "$tool" >/dev/null || die "$tool not found; run scripts/install-deps.sh"
  done
  [ -e "$PLUGIN_DIR/auth_jwt.so" ] ||
    die "$PLUGIN_DIR/auth_jwt.so missing; install slurm-wlm-jwt-plugin (scripts/install-deps.sh)"
  id "$REST_USER" >/dev/null 2>&1 || die "user $REST_USER (for slurmrestd) does not exist"
  if [ "$TOKEN_USER" = scalestudy-jobs ] && ! id scalestudy-jobs >/dev/null 2>&1; then
    log "adding the system account scalestudy-jobs (REST jobs run as it)"
    useradd --system --user-group --no-create-home --shell /usr/sbin/nologin scalestudy-jobs
  fi
  id "$TOKEN_USER" >/dev/null 2>&1 || die "user $TOKEN_USER (SCALESTUDY_SLURM_USER) does not exist"
}

# Refuses a state folder, or its lock, that another user could have prepared: in a shared
# /tmp anyone may create /tmp/scalestudy-slurm first, with a munge or JWT key of their own,
# or symlinks that root would write through. Runs before anything is created or started.
refuse_foreign_state() {
  local path mode
  for path in "$STATE" "$STATE.lock"; do
    [ ! -L "$path" ] || die "$path is a symlink (owned by $(stat -c %U "$path")): refused; remove it"
    [ -e "$path" ] || continue
    [ "$(stat -c %u "$path")" = 0 ] ||
      die "$path belongs to $(stat -c %U "$path"), not root: refused (its keys or links could be theirs); remove it"
    mode=$(stat -c %a "$path")
    (((8#$mode & 8#022) == 0)) ||
      die "$path is writable by group or others (mode $mode): refused; remove it"
  done
}

# Creates the directory tree and the secrets that are generated once and kept.
prepare_state_dir() {
  mkdir -p "$STATE"/{etc,log,run,spool/slurmctld,mariadb,munge,rest}
  # The top folder 0711: the daemons' own users (munge, mysql, slurmrestd's) and the jobs'
  # users reach what they need by its path, but nobody lists it. Below it 0755 so they can
  # read slurm.conf and reach the munge and slurmrestd sockets; keys and passwords are 0600.
  chmod 0711 "$STATE"
  chmod 0755 "$STATE"/{etc,log,run,spool,munge,rest}
  local node
  for node in "${NODES[@]}"; do mkdir -p "$STATE/spool/slurmd-$node"; done

  # munged refuses keys/dirs it does not own or that others can write.
  chown munge:munge "$STATE/munge"
  if [ ! -s "$STATE/munge/munge.key" ]; then
    log "generating munge key"
    mungekey --create --keyfile="$STATE/munge/munge.key"
  fi
  chown munge:munge "$STATE/munge/munge.key"
  chmod 0400 "$STATE/munge/munge.key"
  # Pre-created so munged (which insists on owning its log) and our redirect share it.
  touch "$STATE/munge/munged.log"
  chown munge:munge "$STATE/munge/munged.log"

  # HS256 key shared by slurmctld and slurmdbd for auth/jwt.
  if [ ! -s "$STATE/etc/jwt_hs256.key" ]; then
    log "generating JWT key"
    head -c 32 /dev/urandom >"$STATE/etc/jwt_hs256.key"
  fi
  chmod 0600 "$STATE/etc/jwt_hs256.key"

  [ -s "$STATE/etc/db.pass" ] || random_hex 16 >"$STATE/etc/db.pass"
  chmod 0600 "$STATE/etc/db.pass"

  # slurmrestd (unprivileged) must be able to create its socket here.
  chown "$REST_USER" "$STATE/rest"

  # Configs are regenerated every time so template edits take effect on restart.
  render_template "$CLUSTER_DIR/slurm.conf.in" "$SLURM_CONF"
  cp "$CLUSTER_DIR/slurm-$SLURM_VERSION.conf" "$STATE/etc/slurm-release.conf"
  chmod 0644 "$SLURM_CONF" "$STATE/etc/slurm-release.conf"
  # slurmdbd reads slurmdbd.conf next to $SLURM_CONF and insists on mode 0600.
  render_template "$CLUSTER_DIR/slurmdbd.conf.in" "$STATE/etc/slurmdbd.conf"
  chmod 0600 "$STATE/etc/slurmdbd.conf"
}

start_munge() {
  # munged runs as the munge user (it refuses root-owned keys otherwise) and
  # daemonizes itself; every path is under the state dir.
  start_forking_daemon munged setpriv --reuid=munge --regid=munge --init-groups \
    munged --socket="$MUNGE_SOCKET" --key-file="$STATE/munge/munge.key" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" \
    --seed-file="$STATE/munge/munged.seed"
  # shellcheck disable=SC2016  # $1 expands in the inner bash
  wait_until munged "munge credentials round trip" \
    bash -c 'munge -n -S "$1" | unmunge -S "$1"' _ "$MUNGE_SOCKET"
}

# shellcheck disable=SC2120  # called with -e '...' through wait_until
mariadb_sql() { mariadb --no-defaults --socket="$DB_SOCKET" -u root "$@"; }

start_mariadb() {
  local datadir=$STATE/mariadb/data
  # A temporary folder of its own: every mariadbd, the bootstrap of mariadb-install-db
  # included, deletes each '#sql*' file in its tmpdir as it starts, so clusters initialising
  # side by side in /tmp deleted each other's temporary tables ("Unknown table
  # 'mysql.tmp_user_sys'").
  local tmpdir=$STATE/mariadb/tmp
  mkdir -p "$tmpdir"
  if [ ! -d "$datadir/mysql" ]; then
    log "initialising MariaDB datadir"
    # Into a fresh folder renamed when complete: an initialisation cut short (a killed
    # start) never leaves a half datadir that the next start would take as ready.
    rm -rf "$datadir.new"
    # Root logs in through the unix socket (unix_socket auth), no password.
    mariadb-install-db --no-defaults --datadir="$datadir.new" --tmpdir="$tmpdir" --user=root \
      --auth-root-authentication-method=socket --skip-test-db \
      >>"$(logfile_of mariadb)" 2>&1 || { log_tail "$(logfile_of mariadb)"; die "mariadb-install-db failed"; }
    rm -rf "$datadir"
    mv "$datadir.new" "$datadir"
  fi
  # --no-defaults: ignore /etc/mysql so the system server's config never leaks in.
  # Native AIO is off because it is unavailable in many containers/sandboxes.
  start_foreground_daemon mariadb mariadbd --no-defaults --user=root \
    --datadir="$datadir" --tmpdir="$tmpdir" --socket="$DB_SOCKET" \
    --pid-file="$STATE/run/mariadbd.pid" \
    --port="$DB_PORT" --bind-address=127.0.0.1 --log-error="$(logfile_of mariadb)" \
    --skip-log-bin --innodb-use-native-aio=0 --innodb-buffer-pool-size=64M \
    --innodb-lock-wait-timeout=900
  wait_until mariadb "MariaDB answering on $DB_SOCKET" mariadb_sql -e 'SELECT 1'
  # Idempotent: IF NOT EXISTS everywhere, password re-set to the stored one.
  local pass
  pass=$(cat "$STATE/etc/db.pass")
  # shellcheck disable=SC2119
  mariadb_sql <<SQL
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$pass';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
ALTER USER 'slurm'@'localhost' IDENTIFIED BY '$pass';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
SQL
}

start_slurmdbd() {
  start_forking_daemon slurmdbd slurmdbd
  wait_until slurmdbd "slurmdbd answering sacctmgr" sacctmgr -n list cluster
}

# Registers cluster, account and users; each only when missing, so reruns are quiet.
register_accounting() {
  if ! sacctmgr -n -P list cluster format=cluster | grep -qx scalestudy; then
    sacctmgr -i add cluster scalestudy >/dev/null
  fi
  if ! sacctmgr -n -P list account format=account | grep -qx scalestudy; then
    sacctmgr -i add account scalestudy cluster=scalestudy \
      description="scalestudy test account" organization=scalestudy >/dev/null
  fi
  local user
  for user in "${ACCOUNT_USERS[@]}"; do
    if ! sacctmgr -n -P list user "$user" format=user | grep -qx "$user"; then
      sacctmgr -i add user "$user" account=scalestudy defaultaccount=scalestudy >/dev/null
    fi
  done
}

start_slurmctld() {
  # -i: ignore unreadable state files left by a crash instead of refusing to start.
  start_forking_daemon slurmctld slurmctld -i
  wait_until slurmctld "slurmctld answering scontrol ping" \
    bash -c 'scontrol ping | grep -q UP'
}

# Jobs find rank 0 by the first node's name (MASTER_ADDR from SLURM_JOB_NODELIST), as on a
# real cluster, so node1..node4 must resolve: map them to loopback in /etc/hosts.
resolve_node_names() {
  local node missing=()
  for node in "${NODES[@]}"; do getent hosts "$node" >/dev/null || missing+=("$node"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "127.0.0.1 ${missing[*]} # scalestudy local SLURM cluster" >>/etc/hosts ||
    die "cannot add ${missing[*]} to /etc/hosts"
}

start_slurmds() {
  local node
  for node in "${NODES[@]}"; do
    # -N: this build supports several slurmd per host; each picks its own
    # NodeName entry (port, spool dir, pid file, log) from slurm.conf.
    start_forking_daemon "slurmd-$node" slurmd -N "$node" -d "$SLURMSTEPD"
  done
}

start_slurmrestd() {
  # Remove a stale socket, or slurmrestd fails with "address in use".
  pid_alive "$(pidfile_of slurmrestd)" || rm -f "$REST_SOCKET"
  # Runs as $REST_USER: slurmrestd refuses root and SlurmUser.
  # Auth is JWT only: clients send X-SLURM-USER-NAME + X-SLURM-USER-TOKEN and the
  # request runs as that user. SLURM_JWT=daemon makes auth/jwt slurmrestd's own
  # auth plugin; without it the token is handed to auth/munge, which rejects it
  # ("Rejecting thread config token"). rest_auth/local is not offered: with
  # SLURM_JWT=daemon its munge-less requests fail ("config is unable to load").
  # 22.05 has a plugin per API version (v0.0.38 + dbv0.0.38 are its newest); from 23.02 on
  # the two plugins slurmctld and slurmdbd serve every data parser the release has.
  local plugins=openapi/slurmctld,openapi/slurmdbd
  [ "$SLURM_VERSION" != 22.05 ] ||
    plugins=openapi/v0.0.38,openapi/dbv0.0.38,openapi/v0.0.37,openapi/dbv0.0.37
  start_foreground_daemon slurmrestd setpriv --reuid="$REST_USER" --regid="$(id -g "$REST_USER")" \
    --clear-groups env SLURM_CONF="$SLURM_CONF" SLURM_JWT=daemon \
    "$(command -v slurmrestd)" -a rest_auth/jwt -s "$plugins" "unix:$REST_SOCKET"
}

nodes_idle() {
  [ "$(sinfo -h -N -p debug -t idle,mixed,alloc -o '%N' | sort -u | wc -l)" -eq "${#NODES[@]}" ]
}

rest_ping() {
  curl -sf --unix-socket "$REST_SOCKET" -H "X-SLURM-USER-NAME: $TOKEN_USER" \
    -H "X-SLURM-USER-TOKEN: $1" "http://localhost/slurm/$REST_API/ping" | grep -q '"pings"'
}

wait_until_ready() {
  local node daemons=slurmctld
  for node in "${NODES[@]}"; do daemons+=" slurmd-$node"; done
  wait_until "$daemons" "all ${#NODES[@]} nodes up in sinfo" nodes_idle
  wait_until slurmdbd "sacct answering" sacct -n -X -S now-1hours
}

make_token() {
  # Long-lived so a sourced env.sh keeps working for a working session.
  scontrol token username="$TOKEN_USER" lifespan=$((7 * 24 * 3600)) | sed -n 's/^SLURM_JWT=//p'
}

write_env() {
  local token=$1 tmp
  tmp=$(mktemp "$STATE/env.sh.XXXXXX")
  cat >"$tmp" <<ENV
# Generated by slurm/cluster/start.sh -- source this file.
export SCALESTUDY_SLURM_DIR='$STATE'
export SCALESTUDY_SLURM_VERSION='$SLURM_VERSION'
export SLURM_CONF='$SLURM_CONF'
export SCALESTUDY_SLURMRESTD='unix:$REST_SOCKET'
# slurmrestd identity: send X-SLURM-USER-NAME=\$SCALESTUDY_SLURMRESTD_USER and
# X-SLURM-USER-TOKEN=\$SCALESTUDY_SLURMRESTD_TOKEN; jobs submitted that way run as
# that user. Deliberately not exported as SLURM_JWT: sbatch/squeue/... would then
# authenticate with it and fail for any other user ("Invalid user id").
export SCALESTUDY_SLURMRESTD_USER='$TOKEN_USER'
export SCALESTUDY_SLURMRESTD_TOKEN='$token'
ENV
  # A release of its own root: its clients (sbatch, srun, ...) before the host's.
  if [ -n "$SLURM_ROOT" ]; then
    printf "export SCALESTUDY_SLURM_BIN='%s'\n" "$SLURM_ROOT/scalestudy-bin" >>"$tmp"
    # shellcheck disable=SC2016 # expanded where env.sh is sourced
    echo 'export PATH="$SCALESTUDY_SLURM_BIN:$PATH"' >>"$tmp"
  fi
  # It holds the token user's 7-day token: theirs to read (sudo's user on a laptop), nobody
  # else's; root's to write, since root sources it.
  chown "root:$(id -gn "$TOKEN_USER")" "$tmp"
  chmod 0640 "$tmp"
  mv "$tmp" "$STATE/env.sh"
}

# On a failed start (any exit but 0): stop whatever runs, so no daemon is left behind.
clean_up_failed_start() {
  local status=$?
  [ "$status" -eq 0 ] && return 0
  log "start failed (exit $status); stopping the cluster's daemons"
  bash "$CLUSTER_DIR/stop.sh" >&2 || log "stop.sh failed too"
  exit "$status"
}

main() {
  local start=$SECONDS token
  [ "$(id -u)" -eq 0 ] || die "run as root (slurmd must be root to launch jobs as users)"
  # --unpack-only: only the release's root, e.g. while something else runs (scripts/test.sh).
  if [ "${1:-}" = --unpack-only ]; then
    [ -z "$SLURM_ROOT" ] || prepare_slurm_root "$SLURM_SUITE" "$SLURM_ROOT"
    return 0
  fi
  refuse_foreign_state
  mkdir -p "$(dirname "$STATE")"
  exec 9>"$STATE.lock"
  if ! flock -w "$((4 * WAIT_SECONDS))" 9; then
    die "another start.sh held $STATE.lock for $((4 * WAIT_SECONDS))s"
  fi
  trap clean_up_failed_start EXIT
  # A signal ends the script through exit, so the EXIT trap sees a failure status.
  trap 'exit 143' TERM
  trap 'exit 130' INT
  [ -z "$SLURM_ROOT" ] || prepare_slurm_root "$SLURM_SUITE" "$SLURM_ROOT"
  check_prerequisites
  prepare_state_dir
  start_munge
  start_mariadb
  start_slurmdbd
  register_accounting
  start_slurmctld
  resolve_node_names
  start_slurmds
  start_slurmrestd
  wait_until_ready
  # Keep the existing token on a no-op rerun; mint one when missing, rejected or another
  # user's.
  token=""
  if [ -f "$STATE/env.sh" ] &&
    grep -qx "export SCALESTUDY_SLURMRESTD_USER='$TOKEN_USER'" "$STATE/env.sh"; then
    token=$(sed -n "s/^export SCALESTUDY_SLURMRESTD_TOKEN='\(.*\)'$/\1/p" "$STATE/env.sh")
  fi
  if [ -z "$token" ] || ! rest_ping "$token"; then
    token=$(make_token)
    [ -n "$token" ] || die "scontrol token returned no token"
  fi
  wait_until slurmrestd "slurmrestd answering GET /slurm/$REST_API/ping" rest_ping "$token"
  write_env "$token"
  log "cluster ready in $((SECONDS - start))s; source $STATE/env.sh"
  cat "$STATE/env.sh"
  trap - EXIT
}

main "$@"
