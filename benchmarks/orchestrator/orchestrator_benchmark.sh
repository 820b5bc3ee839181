#!/usr/bin/env bash
# The orchestrator's own costs, side by side for one or more builds of scalestudy (each BIN_DIR
# holds a `scalestudy` and the workloads beside it, e.g. build/bin and a copy of an older
# build): `plan` of studies/quickstart.yaml and of the 10,000-run plan-10k.yaml (table and
# JSON), `run` of the 1,000-run printing study on the local executor, end to end, then that
# study's `ingest` from scratch and its `report` as a table and as JSON.
# Builds run interleaved, round after round; the table gives the median [min-max] of the
# rounds' wall seconds and peak memory per build. --quick: one round of the 100-run study, for CTest
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
# shellcheck source=timed_command.sh
source "$here/timed_command.sh"
trap 'rm -rf "$work"' EXIT
# A private flag-description cache: the first plan of each build fills it, the rounds hit it.
export XDG_CACHE_HOME=$work/cache

timed() {  # LABEL BIN_INDEX COMMAND...: appends the wall seconds and peak MB as samples
  local label=$1 index=$2 seconds kilobytes
  shift 2
  time_command "$label with ${bins[$index]}" "$@"
  printf '%s\t[%s] s\t%s\n%s\t[%s] peak MB\t%s\n' "$label" "$index" "$seconds" "$label" \
    "$index" "$((kilobytes / 1024))" >>"$work/samples"
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
    # Ingest from scratch: forget what the run's own ingest recorded.
    sqlite3 "$results/$(basename "$study" .yaml).sqlite" "DELETE FROM m_ingest"
    timed "ingest $runs printing" "$index" "$cli" ingest "$study" --results-dir "$results"
    timed "report table" "$index" "$cli" report "$study" --results-dir "$results" --no-plots
    timed "report json" "$index" "$cli" report "$study" --results-dir "$results" --no-plots \
      --format json
    rm -rf "$results"
  done
done

echo "orchestrator benchmark: $rounds round(s), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for index in "${!bins[@]}"; do echo "  [$index] ${bins[$index]}"; done
python3 "$here/../median_table.py" --row-header what --digits 2 "$work/samples"
