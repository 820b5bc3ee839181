#!/usr/bin/env bash
# Intra-op threads against work per step: small-cnn on Fashion-MNIST, one rank, at several
# per-rank batches, with 1 and 2 threads (--threads), interleaved round by round. The
# `--threads 0` rule (harness/train/intra_op_threads.hpp) takes its grain from this.
# Prints each round's line as it goes, then the table of docs/performance.md (medians).
#   usage: thread_sweep.sh [BIN_DIR (default build/bin)] [ROUNDS (default 3)]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:-$repo/build/bin}" && pwd)
rounds=${2:-3}
batches=(4 8 16 32)
declare -A mflop=([4]=21 [8]=42 [16]=84 [32]=168)  # forward work per step
work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-threads.XXXXXX")
trap 'rm -rf "$work"' EXIT
for round in $(seq "$rounds"); do
  for batch in "${batches[@]}"; do
    line="round $round batch $batch:"
    for threads in 1 2; do
      out=$work/$batch-$threads
      rm -rf "$out"
      "$bin/scalestudy-launch" --nproc-per-node 1 -- "$bin/scalestudy-train" --model small-cnn \
        --dataset fashion-mnist --device cpu --data-on-device true --seed 0 --batch-size "$batch" \
        --epochs 1 --steps-per-epoch 305 --measure-warmup-steps 5 --val-samples 10 \
        --log-interval 0 --calibrate false --threads "$threads" --out-dir "$out" >/dev/null 2>&1
      rate=$(sqlite3 "$out/rank0.sqlite" \
        "SELECT printf('%.0f', value) FROM summary WHERE name = 'samples_per_s'" || echo failed)
      line="$line $threads thread(s) $rate img/s;"
      printf '%s (%s)\t%s thread(s) img/s\t%s\n' "$batch" "${mflop[$batch]}" "$threads" "$rate" \
        >>"$work/samples"
    done
    echo "$line"
  done
done
echo
python3 "$repo/benchmarks/median_table.py" --row-header 'batch (forward MFLOP/step)' --digits 0 \
  --ratio '2 / 1' '2 thread(s) img/s' '1 thread(s) img/s' "$work/samples"
