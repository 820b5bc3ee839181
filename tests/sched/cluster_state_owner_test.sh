#!/usr/bin/env bash
# slurm/cluster/start.sh refuses a state folder someone else could have prepared, before it
# creates or starts anything: one owned by another user (nobody), a symlink, one writable
# by group or others. Never starts a cluster: a stand-in flock first on PATH fails the
# start and leaves a mark, should start.sh ever get as far as its lock. Needs root (to give
# a folder to nobody): exits 77 (CTest: skipped) without, or 1 under CI=true.
#   cluster_state_owner_test.sh SOURCE_DIR
set -uo pipefail
start=$1/slurm/cluster/start.sh
fail() {
  echo "cluster_state_owner_test: FAILED: $*" >&2
  exit 1
}
if [ "$(id -u)" -ne 0 ]; then
  [ "${CI:-}" != true ] || fail "not root under CI=true"
  echo "skipped: not root (only root can give a folder to another user)"
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/bin"
printf '#!/bin/sh\ntouch %s/flock-reached\nexit 1\n' "$scratch" >"$scratch/bin/flock"
chmod 0755 "$scratch/bin/flock"

# expect_refusal STATE_DIR WORDS: start.sh exits 1 naming STATE_DIR and WORDS, reaching
# neither its lock nor a daemon, and adds nothing to the state folder.
expect_refusal() {
  local state=$1 words=$2 output status before had_lock=0
  before=$(ls -A "$state" 2>/dev/null)
  [ ! -e "$state.lock" ] || had_lock=1
  output=$(PATH="$scratch/bin:$PATH" SCALESTUDY_SLURM_DIR=$state SCALESTUDY_SLURM_PORT_BASE=48800 \
    timeout 60 bash "$start" 2>&1)
  status=$?
  [ "$status" = 1 ] || fail "$state: exit $status, expected 1: $output"
  [[ "$output" == *"$state"*"$words"* ]] || fail "$state: no refusal naming '$words': $output"
  [ ! -e "$scratch/flock-reached" ] || fail "$state: start.sh went on to take its lock"
  [ "$had_lock" = 1 ] || [ ! -e "$state.lock" ] || fail "$state: a lock file was created"
  [ "$(ls -A "$state" 2>/dev/null)" = "$before" ] || fail "$state: something was created in it"
  ! pgrep -f "$scratch" >/dev/null || fail "$state: a process of the cluster runs"
  echo "refused as expected: ${output##*ERROR: }"
}

mkdir "$scratch/foreign"
chown nobody "$scratch/foreign"
expect_refusal "$scratch/foreign" "belongs to nobody, not root"

mkdir "$scratch/elsewhere"
ln -s "$scratch/elsewhere" "$scratch/linked"
expect_refusal "$scratch/linked" "is a symlink"

mkdir -m 0777 "$scratch/open"
chmod 0777 "$scratch/open"
expect_refusal "$scratch/open" "writable by group or others (mode 777)"

touch "$scratch/lockless.lock"
chown nobody "$scratch/lockless.lock"
expect_refusal "$scratch/lockless" ".lock belongs to nobody"
echo "cluster_state_owner_test: passed"
