#!/usr/bin/env bash
# benchmarks/gpu/validate.sh and scripts/gpu-bundle.sh on a machine without a GPU: they parse
# (bash -n) and pass shellcheck, and `validate.sh --dry-run` prints the exact commands of
# each mode — prebuilt bundle, CPU rehearsal, build on the device — and runs none.
#   validate_dry_run_test.sh SOURCE_DIR [BUNDLE_DIR]
set -euo pipefail
source_dir=$1
bundle=${2:-/opt/kit/bundle}
script=$source_dir/benchmarks/gpu/validate.sh
for checked in "$script" "$source_dir/scripts/gpu-bundle.sh"; do
  bash -n "$checked"
done
shellcheck "$script" "$source_dir/scripts/gpu-bundle.sh" "$source_dir/scripts/build-cuda.sh" \
  "$source_dir/scripts/test.sh" "$0"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
out=$scratch/out
work=$scratch/work
kit=benchmarks/gpu

printed=""
fail() {
  echo "validate.sh --dry-run: $*" >&2
  echo "$printed" >&2
  exit 1
}
# expect LINE: the dry run printed exactly LINE.
expect() {
  grep -qxF -- "$1" <<<"$printed" || fail "no line: $1"
}

printed=$(bash "$script" --dry-run --bundle "$bundle" --out "$out" --work "$work")
[ "$(wc -l <<<"$printed")" -eq 18 ] || fail "expected 18 lines"
expect "# skipped time-to-accuracy: no --data-root (Fashion-MNIST's idx files)"
train="$bundle/scalestudy-train --dataset synthetic --model resnet18 --batch-size 128 --epochs 3 \
--steps-per-epoch 40 --measure-warmup-steps 10 --device cuda --data-on-device true \
--channels-last true --cudnn-benchmark true --lr 0.05 --nesterov true"
expect "export LD_LIBRARY_PATH=\"\$(python3 $kit/wheel_library_path.py)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
expect "python3 $kit/preflight.py --bundle $bundle --out $work/preflight.md"
expect "for suite in $bundle/gpu_*; do echo \"\$suite\"; \"\$suite\" --force-colors=0 || [ \$? = 77 ]; done"
for label in fp32 bf16; do
  expect "$train --out-dir $work/runs/$label --precision $label && python3 $kit/check_run.py \
$work/runs/$label --label $label >>$work/smoke.md"
done
expect "$train --out-dir $work/runs/resnet50-64px --precision bf16 --model resnet50 --image-size 64 \
--epochs 4 --warmup-epochs 1 --schedule cosine && python3 $kit/check_run.py $work/runs/resnet50-64px --label resnet50-64px >>$work/smoke.md"
expect "$bundle/scalestudy-ddpm --dataset synthetic --preset small --batch-size 256 --epochs 3 \
--steps-per-epoch 20 --measure-warmup-steps 5 --train-samples 8192 --val-samples 512 --precision \
bf16 --lr 1e-3 --device cuda --data-on-device true --channels-last true --cudnn-benchmark true \
--out-dir $work/runs/ddpm && python3 $kit/check_run.py $work/runs/ddpm --label ddpm --loss-only \
>>$work/smoke.md"
expect "$bundle/scalestudy-train --dataset synthetic --model resnet18 --batch-size 128 --epochs 3 \
--steps-per-epoch 40 --measure-warmup-steps 10 --device cuda --data-on-device true \
--channels-last true --cudnn-benchmark true --lr 0.05 --nesterov true --lr 0 --out-dir \
$work/runs/no-learning --precision bf16 && ! python3 $kit/check_run.py $work/runs/no-learning \
--label no-learning 2>$work/no-learning.txt && grep -q 'training loss did not fall' \
$work/no-learning.txt"
expect "$train --out-dir $work/runs/fp16 --precision fp16 && python3 $kit/check_run.py \
$work/runs/fp16 --label fp16 --require-key loss_scale_skipped_steps >>$work/smoke.md"
expect "$train --out-dir $work/runs/bf16-graph --precision bf16 --cuda-graph true && python3 \
$kit/check_run.py $work/runs/bf16-graph --label bf16-graph >>$work/smoke.md"
lm_run="$bundle/scalestudy-lm --dataset synthetic --preset small --train-samples 2048 \
--val-samples 32 --batch-size 16 --epochs 3 --steps-per-epoch 20 --measure-warmup-steps 5 \
--eval-batch-size 16 --device cuda --data-on-device true --precision bf16 --deterministic true \
--one-rank-process-group true"
lm_match="--lm --losses-match $work/runs/lm-none --noise-runs $work/runs/lm-none \
$work/runs/lm-none-again"
expect "for run in lm-none lm-none-again; do $lm_run --optimizer-sharding none --out-dir \
$work/runs/\$run; done && $lm_run --optimizer-sharding zero1 --out-dir $work/runs/lm && { python3 \
$kit/check_run.py $work/runs/lm --label \"lm-gpt2-small-bf16-b16\" $lm_match >>$work/smoke.md || \
{ $lm_run --optimizer-sharding zero1 --out-dir $work/runs/lm-rerun && python3 $kit/check_run.py \
$work/runs/lm-rerun --label \"lm-gpt2-small-bf16-b16, ZeRO-1 run repeated after a mismatch\" \
$lm_match >>$work/smoke.md; }; }"
grep -q -- "--out-dir $work/runs/bf16-one-rank-pg --precision bf16 --one-rank-process-group true " \
  <<<"$printed" || fail "no one-rank process-group smoke run"
grep -q -- "for pair in \$(seq 7); do order='true false'; \[ \$((pair % 2)) = 1 \] || order='false true'; \
for instrument in \$order; do $bundle/scalestudy-train --dataset synthetic --model resnet18 --batch-size 128 .* \
--instrument \$instrument --out-dir $work/runs/instrument-\$pair-\$instrument; done; done && python3 \
$kit/instrument_overhead.py $work/runs/instrument-1-true $work/runs/instrument-1-false .* \
$work/runs/instrument-7-true $work/runs/instrument-7-false --label resnet18-bf16-b128" <<<"$printed" ||
  fail "no instrumentation A/B of 7 interleaved pairs"
expect "python3 $kit/side_by_side.py --binary $bundle/scalestudy-train --device cuda --batches \
512 --precisions bf16 --repeats 2 --steps 60 --warmup-steps 15 --cuda-graph --markdown \
$work/side_by_side_resnet.md && { cat $work/side_by_side_resnet.md; if [ -f \
$work/side_by_side_lm.md ]; then echo; cat $work/side_by_side_lm.md; fi; } >$work/side_by_side.md"
expect "python3 $kit/side_by_side.py --binary $bundle/scalestudy-train --device cuda --batches '' \
--lm-batches 16 --lm-preset small --lm-precision bf16 --compile default --repeats 2 --steps 50 \
--warmup-steps 10 --markdown $work/side_by_side_lm.md && cp $work/side_by_side_lm.md \
$work/side_by_side.md"
# The steps that settle the most run first: the budget may not reach the last.
order=$(grep -o -e 'scalestudy-allreduce --device' -e 'time_to_accuracy.py' -e '--lm-batches' \
  -e 'instrument_overhead.py' -e '--batches 512' <<<"$printed" | tr '\n' ' ')
[ "$order" = "scalestudy-allreduce --device --lm-batches instrument_overhead.py --batches 512 " ] ||
  fail "steps out of order: $order"
expect "{ echo '\`\`\`'; $bundle/scalestudy-allreduce --device cuda --max-bytes 256M --iters 20 \
--one-rank-process-group true --out-dir $work/runs/allreduce; echo '\`\`\`'; } >$work/allreduce.md"
expect "python3 $kit/pack_results.py --work $work --out $out --title \"GPU validation\""
! grep -q -- 'cmake' <<<"$printed" || fail "a prebuilt run configures or compiles"

printed=$(bash "$script" --dry-run --bundle "$bundle" --data-root /data/fm --out "$out" \
  --work "$work")
expect "$bundle/scalestudy-train --dataset fashion-mnist --data-root /data/fm --model resnet18 \
--batch-size 256 --epochs 10 --eval-batch-size 1024 --target-val-accuracy 0.93 --device cuda \
--data-on-device true --channels-last true --cudnn-benchmark true --precision bf16 --lr 0.1 \
--momentum 0.9 --nesterov true --weight-decay 5e-4 --schedule cosine --warmup-epochs 1 \
--out-dir $work/runs/time-to-accuracy && python3 $kit/time_to_accuracy.py \
$work/runs/time-to-accuracy --label \"resnet18 fashion-mnist bf16 b256, 10 epochs\" \
>$work/time_to_accuracy.md"

printed=$(bash "$script" --dry-run --rehearse-on-cpu --bundle "$bundle" --python py \
  --out "$out" --work "$work")
expect "py $kit/preflight.py --bundle $bundle --out $work/preflight.md --allow-no-gpu"
expect "# skipped smoke-fp16: fp16 runs on CUDA only"
expect "# skipped smoke-bf16-graph: CUDA graphs run on CUDA only"
expect "# skipped smoke-bf16-one-rank-pg: a bundle has no gloo process group for the CPU"
[ "$(grep -c -- '--device cpu ' <<<"$printed")" -eq 10 ] || fail "not every run on the CPU"
grep -q -- "--out-dir $work/runs/small-cnn-64px --precision bf16 --model small-cnn --image-size 64 --precision fp32 " \
  <<<"$printed" || fail "no 64 px smoke run"
! grep -q -- '--device cuda' <<<"$printed" || fail "a rehearsal asks for CUDA"

printed=$(bash "$script" --dry-run --build-on-device --out "$out" --work "$work")
expect "python3 $kit/preflight.py --out $work/preflight.md"
grep -q -- "^cmake -S . -B build-cuda-device -G Ninja -DCMAKE_BUILD_TYPE=Release \
-DSCALESTUDY_CUDA=ON -DSCALESTUDY_ORCHESTRATOR=OFF -DSCALESTUDY_TESTS=OFF " <<<"$printed" ||
  fail "no Release configure without the orchestrator"
expect "cmake --build build-cuda-device -j \"\$(nproc)\" --target scalestudy-train scalestudy-lm \
scalestudy-ddpm scalestudy-allreduce"
grep -q -- "^build-cuda-device/bin/scalestudy-train " <<<"$printed" || fail "not the device build's"

# Without --work: a fresh mktemp -d folder, never a fixed name in a shared /tmp.
printed=$(TMPDIR=$scratch bash "$script" --dry-run --bundle "$bundle" --out "$out")
expect "python3 $kit/preflight.py --bundle $bundle --out $scratch/scalestudy-gpu-kit.XXXXXX/preflight.md"

if [ -e "$out" ] || [ -e "$work" ]; then
  fail "a dry run wrote $out or $work"
fi
echo "validate.sh --dry-run: the commands of every mode, nothing run"
