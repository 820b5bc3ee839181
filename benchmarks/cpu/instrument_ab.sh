#!/usr/bin/env bash
# The cost of measuring: small-cnn on synthetic CIFAR shapes, batch 32, one rank and one
# thread on the CPU (a host-bound step; one thread is moved least by other load), with
# --instrument true and false in PAIRS interleaved pairs, each pair's order alternating so
# that neither setting always runs second. Prints each run as it goes, then
# benchmarks/gpu/instrument_overhead.py's table: every pair and the median overhead.
#   usage: instrument_ab.sh [BIN_DIR (default build/bin)] [PAIRS (default 7)] [STEPS (default 400)]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:-$repo/build/bin}" && pwd)
pairs=${2:-7}
steps=${3:-400}
work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-instrument-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=()
for pair in $(seq "$pairs"); do
  order=(true false)
  [ $((pair % 2)) = 1 ] || order=(false true)
  for instrument in "${order[@]}"; do
    out=$work/$pair-$instrument
    "$bin/scalestudy-train" --model small-cnn --dataset synthetic --device cpu \
      --data-on-device true --seed 0 --batch-size 32 --epochs 1 --steps-per-epoch "$steps" \
      --measure-warmup-steps 20 --val-samples 10 --log-interval 0 --calibrate false \
      --precision fp32 --threads 1 --instrument "$instrument" --out-dir "$out" >"$out.log" 2>&1 ||
      { cat "$out.log" >&2; exit 1; }
    echo "pair $pair, --instrument $instrument: $(sqlite3 "$out/rank0.sqlite" \
      "SELECT printf('%.0f', value) FROM summary WHERE name = 'samples_per_s'") img/s"
  done
  runs+=("$work/$pair-true" "$work/$pair-false")
done
echo
python3 "$repo/benchmarks/gpu/instrument_overhead.py" "${runs[@]}" \
  --label "small-cnn fp32 b32, CPU, 1 rank"
