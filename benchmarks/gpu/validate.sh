#!/usr/bin/env bash
# The GPU validation kit: one call on a fresh GPU machine (PyTorch wheel installed, no
# internet) that builds the CUDA path, runs the GPU suites, smoke-trains ResNet-18 on
# synthetic CIFAR shapes in fp32 / bf16 / fp16 / bf16 + CUDA graph (loss falls, accuracy
# above chance, fp16's skipped steps recorded), measures the instrumentation overhead
# (--instrument true against false), runs the C++/Python side-by-side at batch 128 and 512,
# and writes one markdown table, validation.md, to the output folder, with every
# command's log beside it. Stops at the first failing command and prints its output.
# Every command is bounded by what is left of a 9-minute budget.
#
#   benchmarks/gpu/validate.sh [--dry-run] [--out DIR] [--python PYTHON] [--build-dir DIR]
#     --dry-run    print the exact commands, run nothing
#     --out        output folder (default results/gpu-validation)
#     --python     the Python that has the torch wheel (default python3)
#     --build-dir  the CUDA build folder (default build-cuda)
# Debian dev packages the GPU image lacks: stage their .deb files in .deps/debs (see
# docs/gpu.md); the first step unpacks them into .deps/debs-root, which the build and the
# runs use.
set -euo pipefail
cd "$(dirname "$0")/../.."

dry_run=0
out=results/gpu-validation
python=python3
build_dir=build-cuda
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry_run=1 ;;
    --out) out=$2; shift ;;
    --python) python=$2; shift ;;
    --build-dir) build_dir=$2; shift ;;
    *) echo "validate.sh: unknown argument '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift
done

budget_s=540
debs=.deps/debs
debs_root=.deps/debs-root
train=$build_dir/bin/scalestudy-train
lib_path="$debs_root/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
steps=0

# run NAME COMMAND: prints COMMAND; unless --dry-run, runs it with bash under the time
# left, its output in $out/logs/NAME.log; on failure prints that output and stops.
run() {
  local name=$1 command=$2
  steps=$((steps + 1))
  printf '%s\n' "$command"
  [ "$dry_run" = 1 ] && return 0
  local left_s=$((budget_s - SECONDS))
  local log="$out/logs/$steps-$name.log"
  if [ "$left_s" -le 0 ] || ! timeout "$left_s" bash -o pipefail -c "$command" >"$log" 2>&1; then
    cat "$log" >&2
    echo "validate.sh: FAILED at step $steps ($name) after ${SECONDS} s: $command" >&2
    exit 1
  fi
}

# smoke LABEL FLAGS...: trains with FLAGS and checks the run; $require_key adds checks.
smoke() {
  local label=$1
  shift
  run "smoke-$label" "LD_LIBRARY_PATH=$lib_path $train --dataset synthetic --model resnet18 \
--device cuda --data-on-device true --channels-last true --cudnn-benchmark true --batch-size 128 \
--epochs 3 --steps-per-epoch 40 --measure-warmup-steps 10 --lr 0.05 --nesterov true \
--out-dir $out/runs/$label $* && $python benchmarks/gpu/check_run.py $out/runs/$label \
--label $label ${require_key:-} >> $out/smoke.md"
}

[ "$dry_run" = 1 ] || mkdir -p "$out/logs" "$out/runs"
run stage-debs "mkdir -p $debs_root && for deb in $debs/*.deb; do [ -e \"\$deb\" ] || continue; \
dpkg -x \"\$deb\" $debs_root; done"
run configure "cmake -S . -B $build_dir -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALESTUDY_CUDA=ON \
-DCMAKE_PREFIX_PATH=\"\$($python -c 'import torch; print(torch.utils.cmake_prefix_path)');\
\$($python -c 'import os, torch; print(os.path.dirname(torch.__file__))');$PWD/$debs_root/usr\" \
-DNCCL_ROOT=\"\$($python -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])')\" \
-DCMAKE_CUDA_COMPILER=\${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
# Only what the kit runs: the trainer and the GPU suites (CI builds every target).
run build "cmake --build $build_dir -j \"\$(nproc)\" --target scalestudy-train gpu_cuda_path_test"
run ctest-gpu "LD_LIBRARY_PATH=$lib_path ctest --test-dir $build_dir -L gpu --output-on-failure"
run versions "$python -c 'import torch; print(\"| device | \" + torch.cuda.get_device_name() + \" |\"); \
print(\"| torch | \" + torch.__version__ + \" |\"); print(\"| CUDA (torch) | \" + str(torch.version.cuda) + \" |\"); \
print(\"| cuDNN | \" + str(torch.backends.cudnn.version()) + \" |\"); \
print(\"| NCCL | \" + \".\".join(map(str, torch.cuda.nccl.version())) + \" |\")' > $out/versions.md && \
nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1 | sed 's/^/| driver | /; s/$/ |/' >> $out/versions.md && : > $out/smoke.md"
smoke fp32 --precision fp32
smoke bf16 --precision bf16
require_key="--require-key loss_scale_skipped_steps" smoke fp16 --precision fp16
smoke bf16-graph --precision bf16 --cuda-graph true
run instrument-ab "for instrument in true false; do LD_LIBRARY_PATH=$lib_path $train --dataset synthetic \
--model resnet18 --device cuda --data-on-device true --channels-last true --cudnn-benchmark true \
--precision bf16 --batch-size 128 --epochs 1 --steps-per-epoch 70 --measure-warmup-steps 20 \
--instrument \$instrument --out-dir $out/runs/instrument-\$instrument || exit 1; done && \
$python -c 'import sqlite3, sys; rate = lambda flag: sqlite3.connect(sys.argv[1] + flag + \"/rank0.sqlite\")\
.execute(\"SELECT value FROM summary WHERE name = \\\"samples_per_s\\\"\").fetchone()[0]; on, off = rate(\"true\"), rate(\"false\"); \
print(f\"| bf16 b128 | {on:.0f} | {off:.0f} | {100 * (off - on) / off:.1f}% |\")' $out/runs/instrument- > $out/instrument.md"
run side-by-side "LD_LIBRARY_PATH=$lib_path $python benchmarks/gpu/side_by_side.py --binary $train \
--batches 128,512 --precisions bf16 --repeats 2 --steps 60 --warmup-steps 15 --markdown $out/side_by_side.md"
run table "{ echo '# GPU validation'; echo; echo '| | |'; echo '|---|---|'; cat $out/versions.md; echo; \
echo '## Smoke training (ResNet-18, synthetic CIFAR, batch 128, 3 x 40 steps)'; echo; \
echo '| precision | train loss first → last epoch | final val acc | img/s | fp16 skipped steps |'; \
echo '|---|---|---|---|---|'; cat $out/smoke.md; echo; echo '## Instrumentation overhead'; echo; \
echo '| run | img/s instrumented | img/s not | overhead |'; echo '|---|---|---|---|'; cat $out/instrument.md; \
echo; echo '## C++ against PyTorch (side_by_side.py)'; echo; cat $out/side_by_side.md; } > $out/validation.md"
[ "$dry_run" = 1 ] || echo "validate.sh: passed in ${SECONDS} s; table: $out/validation.md"
