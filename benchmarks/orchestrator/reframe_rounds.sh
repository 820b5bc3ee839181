#!/usr/bin/env bash
# scalestudy against ReFrame on the same 1,000 runs: `scalestudy run printing-1000.yaml` on the
# local executor and ReFrame (reframe/printing_1000.py, reframe/settings.py: local scheduler
# and launcher, serial policy, perflogs on), interleaved round after round, the order
# alternating. Each round checks that all 1,000 runs completed on both sides. Prints each
# round's times, then the table of docs/performance.md (medians over the rounds).
# ReFrame comes from PyPI into .deps/reframe-venv (pinned below) on the first call.
#   usage: reframe_rounds.sh [--rounds N (default 3)] [BIN_DIR (default build/bin)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
reframe_version=4.10.4
rounds=3
bin=$repo/build/bin
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    *) bin=$1 ;;
  esac
  shift
done
bin=$(cd "$bin" && pwd)
venv=$repo/.deps/reframe-venv
if [ "$("$venv/bin/reframe" --version 2>/dev/null)" != "$reframe_version" ]; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "reframe-hpc==$reframe_version"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-reframe.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
cd "$repo"

scalestudy_round() {  # ROUND: prints the wall seconds
  local results=$work/scalestudy-$1 start=$EPOCHREALTIME completed
  "$bin/scalestudy" run "$here/printing-1000.yaml" --scheduler local --results-dir "$results" \
    --no-plots --format csv >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $start }"
  completed=$("$bin/scalestudy" query "$here/printing-1000.yaml" --results-dir "$results" \
    --format csv "SELECT count(*) FROM runs WHERE state = 'COMPLETED'" | tail -n 1)
  [ "$completed" = 1000 ] || { echo "scalestudy: $completed of 1000 runs completed" >&2; exit 1; }
  rm -rf "$results"
}

reframe_round() {  # ROUND: prints the wall seconds
  local prefix=$work/reframe-$1 start=$EPOCHREALTIME
  "$venv/bin/reframe" -C "$here/reframe/settings.py" -c "$here/reframe/printing_1000.py" \
    --prefix "$prefix" --exec-policy=serial -r >"$work/out" 2>&1 || {
    tail -n 30 "$work/out" >&2
    exit 1
  }
  awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $start }"
  grep -q 'PASSED.*Ran 1000/1000 test case' "$work/out" || {
    echo "ReFrame: not all 1000 tests passed:" >&2
    tail -n 5 "$work/out" >&2
    exit 1
  }
  rm -rf "$prefix"
}

"$bin/scalestudy" plan "$here/printing-1000.yaml" >/dev/null 2>&1  # fills the flag cache
row="1,000 runs of printing-1000, wall s"
for round in $(seq "$rounds"); do
  order="scalestudy reframe"
  [ $((round % 2)) = 0 ] && order="reframe scalestudy"
  for side in $order; do
    seconds=$("${side}_round" "$round")
    echo "round $round $side: $seconds s, load $(cut -d' ' -f1 /proc/loadavg)"
    [ "$side" = reframe ] && column="ReFrame $reframe_version, serial" || column=scalestudy
    printf '%s\t%s\t%s\n' "$row" "$column" "$seconds" >>"$work/samples"
  done
done
echo
python3 "$here/../median_table.py" --row-header "$(nproc) cores" --digits 2 \
  --ratio "ReFrame / scalestudy" "ReFrame $reframe_version, serial" scalestudy "$work/samples"
