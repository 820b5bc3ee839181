#!/usr/bin/env bash
# Ingest and report at 64, 256 and 1,024 ranks (16 a node): the shared fixture's recorded
# H200 run made an N-rank weak-scaling study by the suites' generator (BIN_DIR/scaled_study,
# tests/results/scaled_run.hpp: rank databases copied and rewritten, timings perturbed, three
# planted outliers), then `scalestudy ingest` from scratch and `report` as a table, JSON and
# HTML, round after round; the table gives the median [min-max] wall seconds, ingest's
# milliseconds per rank, its peak memory, the terminal report's lines and the HTML's size.
# Every round checks that every rank was ingested and the terminal report kept to 80 lines;
# no timing is asserted. --quick: 64 ranks, one round, for CTest (label benchmark). Without
# the fixture: exits 77 (skipped), or 1 where every prerequisite must be present.
#   usage: rank_scale_benchmark.sh [--quick] [--rounds N] [--recorded DIR] BIN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
recorded=$repo/../shared/fixtures/h200-2026-11-28/lm-study
rounds=3
sizes=(64 256 1024)
bin=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) rounds=1 sizes=(64) ;;
    --rounds) rounds=$2; shift ;;
    --recorded) recorded=$2; shift ;;
    *) bin=$(cd "$1" && pwd) ;;
  esac
  shift
done
[ -n "$bin" ] || { sed -n 2,10p "$0" >&2; exit 2; }
if [ ! -d "$recorded" ]; then
  # A skip fails where every prerequisite must be present (CI=true, or root on Debian).
  if [ "${CI:-}" = true ] || { [ "$(id -u)" -eq 0 ] && [ -f /etc/debian_version ]; }; then
    echo "no recorded study at $recorded: FAILED (CI=true, or root on Debian)" >&2
    exit 1
  fi
  echo "no recorded study at $recorded: skipped" >&2
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-rank-scale.XXXXXX")
# shellcheck source=timed_command.sh
source "$here/timed_command.sh"
trap 'rm -rf "$work"' EXIT
study=lm-gpt2-small-h100

timed() {  # ROW LABEL COMMAND...: appends the wall seconds as a sample; peak MB for ingest
  local row=$1 label=$2 seconds kilobytes
  shift 2
  time_command "$row: $label" "$@"
  printf '%s\t%s [s]\t%s\n' "$row" "$label" "$seconds" >>"$work/samples"
  if [ "$label" = ingest ]; then
    printf '%s\tingest [ms/rank]\t%s\n' "$row" \
      "$(python3 -c "print($seconds * 1000 / ${row%% *})")" >>"$work/samples"
    printf '%s\tingest peak [MB]\t%s\n' "$row" "$((kilobytes / 1024))" >>"$work/samples"
  fi
}

for ranks in "${sizes[@]}"; do
  results=$work/results-$ranks
  "$bin/scaled_study" "$recorded" "$results" "$ranks" $((ranks / 16)) >/dev/null
done
for round in $(seq "$rounds"); do
  for ranks in "${sizes[@]}"; do
    results=$work/results-$ranks row=$ranks
    # Ingest from scratch: forget what the last round recorded.
    sqlite3 "$results/$study.sqlite" "DELETE FROM m_ingest"
    timed "$row" ingest "$bin/scalestudy" ingest "$study" --results-dir "$results"
    ingested=$(sqlite3 "$results/$study.sqlite" "SELECT count(*) FROM m_run")
    [ "$ingested" = $((ranks + 1)) ] || { echo "$row: $ingested rank rows ingested" >&2; exit 1; }
    timed "$row" "report table" "$bin/scalestudy" report "$study" --results-dir "$results" \
      --no-ingest --no-plots
    lines=$(wc -l <"$work/out")
    printf '%s\treport lines\t%s\n' "$row" "$lines" >>"$work/samples"
    [ "$lines" -le 80 ] || { echo "$row: the terminal report has $lines lines" >&2; exit 1; }
    timed "$row" "report json" "$bin/scalestudy" report "$study" --results-dir "$results" \
      --no-ingest --no-plots --format json
    timed "$row" "report html" "$bin/scalestudy" report "$study" --results-dir "$results" \
      --no-ingest --no-plots --format html
    printf '%s\thtml [KB]\t%s\n' "$row" "$(($(wc -c <"$work/out") / 1024))" >>"$work/samples"
  done
done

echo "rank-scale benchmark: $rounds round(s), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/../median_table.py" --row-header ranks --digits 2 "$work/samples"
