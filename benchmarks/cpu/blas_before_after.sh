#!/usr/bin/env bash
# The BLAS under LibTorch, before and after, on both sides of the CPU benchmark: the C++
# workloads and the PyTorch-Python twin (reference_train.py) each run once on Debian's
# reference BLAS (LD_LIBRARY_PATH to its blas/ and lapack/ folders) and once on what the
# alternatives select (OpenBLAS's OpenMP build, after scripts/install-deps.sh). One rank,
# data resident in memory, the variants interleaved with the order alternating per round;
# each round also times the quickstart study end to end on either BLAS.
# Prints one line per run (round, model, batch, BLAS, C++ and Python images/s, load), then
# the tables of docs/performance.md (medians over the rounds).
#   usage: blas_before_after.sh [BIN_DIR (default build/bin)] [ROUNDS (default 3)]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:-$repo/build/bin}" && pwd)
rounds=${2:-3}
arch=$(gcc -dumpmachine)
reference="/usr/lib/$arch/blas:/usr/lib/$arch/lapack"
work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-blas.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$repo"

selected=alternatives
case $(readlink -f "/usr/lib/$arch/libblas.so.3") in *openblas*) selected=OpenBLAS ;; esac

library_path() { [ "$1" = reference ] && echo "$reference" || echo ""; }
label() { [ "$1" = reference ] && echo "reference BLAS" || echo "$selected"; }

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
  order="reference alternatives"
  [ $((round % 2)) = 0 ] && order="alternatives reference"
  for config in "ddpm 8 4" "small-cnn 32 100" "small-cnn 128 40"; do
    read -r model batch steps <<<"$config"
    for blas in $order; do
      cpp=$(cpp_side "$blas" "$model" "$batch" "$steps")
      python=$(python_side "$blas" "$model" "$batch" "$steps" || echo failed)
      echo "round $round $model batch $batch $blas: C++ $cpp Python $python img/s," \
        "load $(cut -d' ' -f1 /proc/loadavg)"
      row="$model, batch $batch, img/s"
      printf '%s\tC++ %s\t%s\n%s\tPython %s\t%s\n' "$row" "$(label "$blas")" "$cpp" \
        "$row" "$(label "$blas")" "$python" >>"$work/steps"
    done
  done
  for blas in $order; do
    start=$EPOCHREALTIME
    LD_LIBRARY_PATH=$(library_path "$blas") "$bin/scalestudy" run "$repo/studies/quickstart.yaml" \
      --scheduler local --results-dir "$work/quickstart-$round-$blas" --no-plots >/dev/null 2>&1 &&
      seconds=$(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $start }") || seconds=failed
    echo "round $round quickstart $blas: $seconds s"
    printf 'quickstart end to end, s\t%s\t%s\n' "$(label "$blas")" "$seconds" >>"$work/quickstart"
  done
done
echo
python3 "$repo/benchmarks/median_table.py" --row-header run \
  --ratio "C++ ×" "C++ $selected" "C++ reference BLAS" \
  --ratio "Python ×" "Python $selected" "Python reference BLAS" "$work/steps"
echo
python3 "$repo/benchmarks/median_table.py" --digits 2 \
  --ratio "reference / $selected" "reference BLAS" "$selected" "$work/quickstart"
