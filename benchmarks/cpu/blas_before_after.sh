#!/usr/bin/env bash
# The BLAS under LibTorch, before and after, on both sides of the CPU benchmark: the C++
# workloads and the PyTorch-Python twin (reference_train.py) each run once on Debian's
# reference BLAS (LD_LIBRARY_PATH to its blas/ and lapack/ folders) and once on what the
# alternatives select (OpenBLAS's OpenMP build, after scripts/install-deps.sh). One rank,
# data resident in memory, the variants interleaved with the order alternating per round.
# Prints one line per run: round, model, batch, BLAS, C++ and Python images/s, load.
#   usage: blas_before_after.sh [BIN_DIR (default build/bin)] [ROUNDS (default 3)]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:-$repo/build/bin}" && pwd)
rounds=${2:-3}
arch=$(gcc -dumpmachine)
reference="/usr/lib/$arch/blas:/usr/lib/$arch/lapack"
work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-blas.XXXXXX")
trap 'rm -rf "$work"' EXIT

library_path() { [ "$1" = reference ] && echo "$reference" || echo ""; }

cpp_side() {  # BLAS MODEL BATCH STEPS
  local out=$work/$1-$2-$3 workload
  rm -rf "$out"
  if [ "$2" = ddpm ]; then
    workload=("$bin/scalestudy-ddpm" --preset small --dataset fashion-mnist)
  else
    workload=("$bin/scalestudy-train" --model "$2" --dataset fashion-mnist)
  fi
  LD_LIBRARY_PATH=$(library_path "$1") "$bin/scalestudy-launch" --nproc-per-node 1 -- \
    "${workload[@]}" --device cpu --data-on-device true --seed 0 --batch-size "$3" --epochs 1 \
    --steps-per-epoch $(($4 + 2)) --measure-warmup-steps 2 --val-samples 10 --log-interval 0 \
    --out-dir "$out" >/dev/null 2>&1 || { echo failed; return; }
  sqlite3 "$out/rank0.sqlite" \
    "SELECT printf('%.1f', value) FROM summary WHERE name = 'samples_per_s'"
}

python_side() {  # BLAS MODEL BATCH STEPS
  LD_LIBRARY_PATH=$(library_path "$1") "$bin/scalestudy-launch" --nproc-per-node 1 -- \
    /usr/bin/python3 "$repo/benchmarks/cpu/reference_train.py" --model "$2" --batch-size "$3" \
    --warmup-steps 2 --steps "$4" --seed 0 2>/dev/null | tail -n 1 |
    /usr/bin/python3 -c 'import json, sys; print("%.1f" % json.load(sys.stdin)["images_per_s"])'
}

for round in $(seq "$rounds"); do
  for config in "ddpm 8 4" "small-cnn 32 100" "small-cnn 128 40"; do
    read -r model batch steps <<<"$config"
    order="reference alternatives"
    [ $((round % 2)) = 0 ] && order="alternatives reference"
    for blas in $order; do
      echo "round $round $model batch $batch $blas: C++ $(cpp_side "$blas" "$model" "$batch" "$steps")" \
        "Python $(python_side "$blas" "$model" "$batch" "$steps") img/s, load $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
