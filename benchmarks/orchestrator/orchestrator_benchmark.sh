#!/usr/bin/env bash
# The orchestrator's own costs, side by side for one or more builds of scalestudy (each BIN_DIR
# holds a `scalestudy` and the workloads beside it, e.g. build/bin and a copy of an older
# build): `plan` of studies/quickstart.yaml and of the 10,000-run plan-10k.yaml (table and
# JSON), and `run` of the 1,000-run printing study on the local executor, end to end.
# Builds run interleaved, round after round; each line is the median [min-max] of the
# rounds' wall seconds and peak memory. --quick: one round of the 100-run study, for CTest
# (label benchmark): it checks that every run completed and was reported, and times nothing
# it asserts on.
#   usage: orchestrator_benchmark.sh [--quick] [--rounds N] BIN_DIR [BIN_DIR ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rounds=3
study=$here/printing-1000.yaml
runs=1000
bins=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) rounds=1 study=$here/printing-100.yaml runs=100 ;;
    --rounds) rounds=$2; shift ;;
    *) bins+=("$(cd "$1" && pwd)") ;;
  esac
  shift
done
[ ${#bins[@]} -gt 0 ] || { sed -n 2,10p "$0" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-orchestrator-benchmark.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A private flag-description cache: the first plan of each build fills it, the rounds hit it.
export XDG_CACHE_HOME=$work/cache

timed() {  # LABEL BIN_INDEX COMMAND...: appends "LABEL INDEX seconds kilobytes"
  local label=$1 index=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "$label failed with ${bins[$index]}:" >&2
    tail -n 20 "$work/err" >&2
    exit 1
  }
  echo "$label $index $(cat "$work/time")" >>"$work/times"
}

cd "$repo"
for index in "${!bins[@]}"; do "${bins[$index]}/scalestudy" plan studies/quickstart.yaml >/dev/null 2>&1; done
for round in $(seq "$rounds"); do
  for index in "${!bins[@]}"; do
    cli=${bins[$index]}/scalestudy
    timed "plan quickstart" "$index" "$cli" plan studies/quickstart.yaml
    timed "plan 10k table" "$index" "$cli" plan "$here/plan-10k.yaml" --format table
    timed "plan 10k json" "$index" "$cli" plan "$here/plan-10k.yaml" --format json
    results=$work/results-$index-$round
    timed "run $runs printing" "$index" "$cli" run "$study" --scheduler local \
      --results-dir "$results" --no-plots --format csv
    reported=$(grep -c '^' "$work/out" || true)
    completed=$("$cli" query "$study" --results-dir "$results" --format csv \
      "SELECT count(*) FROM runs WHERE state = 'COMPLETED'" | tail -n 1)
    if [ "$completed" != "$runs" ] || [ "$reported" -lt 2 ]; then
      echo "run of $study with ${bins[$index]}: $completed of $runs runs completed" >&2
      exit 1
    fi
    rm -rf "$results"
  done
done

echo "orchestrator benchmark: $rounds round(s), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for index in "${!bins[@]}"; do echo "  [$index] ${bins[$index]}"; done
python3 - "$work/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    *label, index, seconds, kilobytes = line.split()
    rows.setdefault((" ".join(label), int(index)), []).append((float(seconds), int(kilobytes)))
print(f"{'what':<20} {'build':>5} {'median s':>9} {'[min-max]':>15} {'peak MB':>8}")
for (label, index), samples in rows.items():
    seconds = [s for s, _ in samples]
    peak = max(k for _, k in samples) / 1024
    print(f"{label:<20} {index:>5} {statistics.median(seconds):>9.2f} "
          f"{'[%.2f-%.2f]' % (min(seconds), max(seconds)):>15} {peak:>8.0f}")
PY
