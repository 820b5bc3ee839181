#!/usr/bin/env bash
# slurm/cluster/start.sh under failure, on a second cluster of its own (own state folder and
# ports, so the suites' cluster runs on meanwhile): with slurmctld's port taken, the start
# fails with slurmctld's own error and its log, and leaves no daemon behind; once the port
# is free, a start succeeds; two starts at once both succeed (the lock); stop.sh --purge
# ends it. Another MariaDB's temporary table in /tmp outlives the cluster's MariaDB, which
# initialises and starts in a folder of its own. Needs root: exits 77 (CTest: skipped)
# without, or 1 where the cluster must run (CI=true, or root on Debian).
#   cluster_start_test.sh SOURCE_DIR
set -uo pipefail
cluster=$1/slurm/cluster
export SCALESTUDY_SLURM_DIR=/tmp/scalestudy-slurm-start-test
export SCALESTUDY_SLURM_PORT_BASE=17800
ctld_port=$((SCALESTUDY_SLURM_PORT_BASE + 17))
listener=""
# What another server's temporary table in the shared /tmp looks like to a mariadbd;
# made by mktemp (a fresh name, O_EXCL), never at a path someone could have prepared.
foreign_table=""

fail() {
  echo "cluster_start_test: FAILED: $*" >&2
  exit 1
}
finish() {
  [ -z "$listener" ] || kill "$listener" 2>/dev/null
  rm -f "$SCALESTUDY_SLURM_DIR".{listener,first,second}
  [ -z "$foreign_table" ] || rm -f "$foreign_table"
  bash "$cluster/stop.sh" --purge >/dev/null 2>&1
}
trap finish EXIT

if [ "$(id -u)" -ne 0 ]; then
  [ "${CI:-}" != true ] || fail "not root under CI=true"
  echo "skipped: not root (the cluster's slurmd must run as root)"
  exit 77
fi
# Daemons of this cluster: any live process with a file open under its state folder.
daemons_left() {
  local proc fd
  for proc in /proc/[0-9]*; do
    for fd in "$proc"/fd/*; do
      if [[ "$(readlink "$fd" 2>/dev/null)" == "$SCALESTUDY_SLURM_DIR/"* ]]; then
        echo "${proc#/proc/} $(cat "$proc/comm" 2>/dev/null)"
        break
      fi
    done
  done
}

bash "$cluster/stop.sh" --purge >/dev/null 2>&1
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(); print("listening", flush=True); time.sleep(600)' \
  "$ctld_port" >"$SCALESTUDY_SLURM_DIR.listener" &
listener=$!
until grep -q listening "$SCALESTUDY_SLURM_DIR.listener" 2>/dev/null; do
  kill -0 "$listener" 2>/dev/null || fail "could not hold port $ctld_port"
  sleep 0.1
done

foreign_table=$(mktemp --suffix=.frm '/tmp/#sql-cluster-start-test-XXXXXX') ||
  fail "could not make a stand-in temporary table in /tmp"
if output=$(bash "$cluster/start.sh" 2>&1); then
  fail "start.sh succeeded with slurmctld's port $ctld_port taken"
fi
for expected in "Address already in use" "slurmctld died while waiting" \
  "start failed (exit 1); stopping the cluster's daemons"; do
  grep -qF "$expected" <<<"$output" || fail "no '$expected' in start.sh's output:
$output"
done
left=$(daemons_left)
[ -z "$left" ] || fail "daemons left behind after a failed start: $left"
echo "cluster_start_test: a failed start said why and left no daemon"

kill "$listener"
wait "$listener" 2>/dev/null
listener=""
bash "$cluster/start.sh" >"$SCALESTUDY_SLURM_DIR.first" 2>&1 & first=$!
bash "$cluster/start.sh" >"$SCALESTUDY_SLURM_DIR.second" 2>&1 & second=$!
wait "$first" || fail "the first of two starts at once failed:
$(cat "$SCALESTUDY_SLURM_DIR.first")"
wait "$second" || fail "the second of two starts at once failed:
$(cat "$SCALESTUDY_SLURM_DIR.second")"
SLURM_CONF=$SCALESTUDY_SLURM_DIR/etc/slurm.conf scontrol ping | grep -q UP ||
  fail "no controller after the starts"
echo "cluster_start_test: after the port was freed, two starts at once both succeeded"
[ -e "$foreign_table" ] || fail "the cluster's MariaDB deleted $foreign_table in /tmp"
echo "cluster_start_test: another server's temporary table in /tmp is still there"
