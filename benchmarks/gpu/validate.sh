#!/usr/bin/env bash
# The GPU validation kit: one call on a lent GPU machine (the torch wheel in python3, no
# internet, at most 10 minutes) that yields a table to trust. Runs prebuilt: the bundle of
# scripts/gpu-bundle.sh, with LibTorch, CUDA and NCCL taken from python3's wheel
# (benchmarks/gpu/wheel_library_path.py), no configure and no compile. Steps, each bounded
# by the seconds below and by what is left of a budget, 9 minutes unless --budget-s says
# otherwise (on an H100, 2026-11-26,
# every step but the side-by-side took under 20 s, the side-by-side about 14 s a process):
#   preflight (30 s)     this machine against the bundle's bundle.json; a mismatch stops
#                        the kit (benchmarks/gpu/preflight.py)
#   gpu-suites (30 s)    the suites labelled gpu
#   smoke-* (30 s each)  ResNet-18 on synthetic CIFAR shapes, 3 x 40 steps at batch 128, in
#                        fp32, bf16, fp16, bf16 + CUDA graph, and bf16 through the NCCL
#                        process group and the bucketer with a world of one; each must
#                        learn: finite losses, a later epoch's training loss 5% below the
#                        first's, the best epoch's validation accuracy 10 points above
#                        chance (benchmarks/gpu/check_run.py; the last epoch of a short run
#                        alone is noise, and its kernels differ by CPU and GPU)
#   smoke-resnet50-64px  seed 004's model at TinyImageNet's side: ResNet-50 (ImageNet stem) on
#     (30 s)             synthetic 64 x 64 images, bf16, 4 x 40 steps at batch 128 (a warm-up
#                        epoch, then cosine); must learn
#   smoke-ddpm (30 s)    seed 000's DDPM (scalestudy-ddpm, UNet at 28 px) on synthetic
#                        one-channel images, bf16, 3 x 20 steps at batch 256: the denoising
#                        loss must fall and stay finite (check_run.py --loss-only)
#   control-no-learning  the bf16 smoke run at learning rate 0: check_run.py must reject it,
#     (30 s)             so a passing smoke run means the check can fail
#   smoke-lm (60 s)      studies/lm-gpt2-small-4xh100.yaml's workload on one GPU: GPT-2
#                        small on synthetic tokens, bf16, 3 x 20 steps of 16 x 1024 tokens,
#                        through the NCCL process group of one rank, with deterministic
#                        kernels: twice without ZeRO-1 and once with it; each must record
#                        tokens/s and finite losses (random tokens teach nothing), and
#                        every step's loss with ZeRO-1 must match the first run's: bit for
#                        bit where the two runs without agree bit for bit, else within twice
#                        their difference (check_run.py --lm --losses-match --noise-runs)
#   allreduce (20 s)     scalestudy-allreduce's sweep on the one GPU, through the NCCL process
#                        group of one rank and raw ncclAllReduce
#   time-to-accuracy     with --data-root: ResNet-18 on Fashion-MNIST, bf16, batch 256, 10
#     (90 s)             epochs, time to 93% validation accuracy
#                        (benchmarks/gpu/time_to_accuracy.py)
#   side-by-side-lm      scalestudy-lm against nanoGPT's model and step in PyTorch
#     (300 s)            (lm_reference_train.py), GPT-2 small at batch 16, bf16, AdamW,
#                        eager and torch.compile (mode default), and scalestudy-lm's plain
#                        and fast paths, all interleaved; tokens/s and MFU; its table is
#                        side_by_side.md until the ResNet side by side puts its own first
#                        (8 files come back)
#   instrument-ab        --instrument true against false, ResNet-18 b128 bf16, 7 interleaved
#     (150 s)            pairs, the order alternating (the CPU rehearsal: 1 pair)
#   side-by-side (240 s) C++ against PyTorch at batch 512, bf16, both sides as CUDA graphs,
#                        after the loss cross-check (benchmarks/gpu/side_by_side.py)
# The steps that settle the most come first (the kit, the time to accuracy with its energy
# and clocks, the LM side by side), the long A/B and the ResNet side by side last: the
# bounds add up to more than the budget, and a step the budget cannot reach is recorded as
# not run and fails the kit. A failing step is recorded and the kit goes on (only a failed
# preflight stops it). The work folder (logs, run databases, reports) is packed into the
# output folder at the end, whatever happened, and on SIGTERM or SIGINT (a caller's time
# limit): at most 8 files, none in a subfolder (benchmarks/gpu/pack_results.py):
# validation.md (every step's bound, wall seconds and status, the reports, failed steps'
# log tails, the returned files' sizes), the reports, kit-logs-and-runs.tar.gz.
# Exit 0 when every step passed or was skipped (a step this machine cannot run), 1 when one
# failed or the budget did not reach it, 3 when preflight stopped.
#
#   benchmarks/gpu/validate.sh [--bundle DIR | --build-dir DIR | --build-on-device]
#       [--rehearse-on-cpu] [--data-root DIR] [--out DIR] [--work DIR] [--python PYTHON]
#       [--budget-s SECONDS] [--dry-run]
#     --bundle DIR       the prebuilt bundle (default .gpu-bundle)
#     --build-dir DIR    instead, the binaries of an existing CUDA build folder (bin/)
#     --build-on-device  first configure and build, Release, into --build-dir (default
#                        build-cuda-device) the four workloads only: no orchestrator
#                        (-DSCALESTUDY_ORCHESTRATOR=OFF), no suites (doctest is test-only);
#                        needs SQLite, zlib, libpng and libturbojpeg (pkg-config) headers;
#                        bounded by 420 s, the rest gets what is left (a second call on the
#                        warm machine finds the build done)
#     --rehearse-on-cpu  the same steps on the CPU (--device cpu), with a small model and
#                        few steps: CI's end-to-end check of the kit; CUDA-only runs
#                        (fp16, CUDA graph) are skipped; bounds are those of the GPU run
#                        (the table shows them) but only a 300 s cap per step is enforced
#     --data-root DIR    Fashion-MNIST's four idx files (Debian's dataset-fashion-mnist has
#                        them in /usr/share/datasets/fashion-mnist; carry a copy to the GPU
#                        machine): adds the time-to-accuracy step
#     --out DIR          what comes back (default results/gpu-validation)
#     --work DIR         logs and runs before packing (default a fresh folder of mktemp -d
#                        under $TMPDIR, never a fixed /tmp name another user could make
#                        first; must be empty or an earlier run's work folder, which is
#                        emptied)
#     --python PYTHON    the Python with the torch wheel (default python3)
#     --budget-s SECONDS the whole kit's time (default 540; the CPU rehearsal's 1800): under
#                        the caller's own limit, so that packing still fits
#     --dry-run          print the exact commands, run nothing
# Relative paths are taken from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."

bundle=.gpu-bundle
build_dir=""
build_on_device=0
rehearse=0
out=results/gpu-validation
work=""
python=python3
dry_run=0
data_root=""
budget_s=""
while [ $# -gt 0 ]; do
  case $1 in
    --bundle) bundle=$2; shift ;;
    --build-dir) build_dir=$2; shift ;;
    --build-on-device) build_on_device=1 ;;
    --rehearse-on-cpu) rehearse=1 ;;
    --out) out=$2; shift ;;
    --work) work=$2; shift ;;
    --python) python=$2; shift ;;
    --budget-s) budget_s=$2; shift ;;
    --data-root) data_root=$2; shift ;;
    --dry-run) dry_run=1 ;;
    *) echo "validate.sh: unknown argument '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift
done

if [ -z "$work" ]; then
  if [ "$dry_run" = 1 ]; then
    work="${TMPDIR:-/tmp}/scalestudy-gpu-kit.XXXXXX"  # what mktemp -d would make
  else
    work=$(mktemp -d "${TMPDIR:-/tmp}/scalestudy-gpu-kit.XXXXXX")
  fi
fi

# The training flag that gives a world of one the process group and the gradient bucketer
# (declared in harness/train/driver.cpp); a binary without it skips that smoke run and says
# so in the table.
world_of_one_flag=--one-rank-process-group

kit=benchmarks/gpu
if [ "$build_on_device" = 1 ]; then
  build_dir=${build_dir:-build-cuda-device}
fi
if [ -n "$build_dir" ]; then
  bin=$build_dir/bin
  preflight_bundle=""
else
  bin=$bundle
  preflight_bundle="--bundle $bundle"
fi
train=$bin/scalestudy-train
if [ "$rehearse" = 1 ]; then
  title="GPU kit, CPU rehearsal"
  device=cpu
  no_gpu=" --allow-no-gpu"
  step_cap_s=300
  budget_s=${budget_s:-1800}
  smoke_sizes="--model small-cnn --batch-size 32 --epochs 3 --steps-per-epoch 10 \
--measure-warmup-steps 2 --val-samples 200"
  # Cosine: at a constant 0.05 the third epoch's validation swings (20% after 47% in bf16 on
  # an AVX2-only CPU); annealed, the last epoch is the best on AVX2 and AVX-512 alike.
  smoke_optimizer="--lr 0.05 --nesterov true --schedule cosine"
  # ResNet-50 trains at about 1 image/s in bf16 on an AVX2 CPU and does not learn in a few
  # steps at a CPU's batch: the rehearsal runs the 64 px step's command with the small CNN,
  # in fp32 (the last --precision wins), since bf16 convolutions run several times slower
  # than fp32 on a CPU without AVX-512 BF16.
  wide_image_run="--model small-cnn --image-size 64 --precision fp32"
  wide_image_label=small-cnn-64px
  # fp32: the UNet's bf16 convolutions ran 16 times slower than fp32 on an AVX2 CPU.
  ddpm_run="--preset small --base-channels 16 --res-blocks 1 --batch-size 16 --epochs 3 \
--steps-per-epoch 6 --measure-warmup-steps 2 --train-samples 512 --val-samples 32 --precision fp32"
  ab_sizes="--model small-cnn --batch-size 32 --epochs 1 --steps-per-epoch 8 --measure-warmup-steps 2 \
--val-samples 100"
  ab_label="small-cnn-bf16-b32"
  instrument_pairs=1
  instrument_bound=40
  lm_sizes="--preset tiny --train-samples 256 --val-samples 16 --batch-size 8 --epochs 2 \
--steps-per-epoch 4 --measure-warmup-steps 1"
  lm_label="lm-tiny-bf16 (CPU rehearsal)"
  side_by_side_sizes="--batches 8 --precisions bf16 --repeats 1 --steps 2 --warmup-steps 1 \
--cross-check-batch 4"
  # fp32, no compile: a CPU's bf16 runs the tiny GPT ten times slower, and compiling needs time
  # the rehearsal has not.
  lm_side_by_side_sizes="--lm-batches 4 --lm-preset tiny --lm-precision fp32 --repeats 1 \
--steps 3 --warmup-steps 1"
  allreduce_sizes="--max-bytes 1M --iters 5"
  # Learns, not to the target: 2 epochs of a small model on 2,048 images.
  accuracy_run="--model small-cnn --batch-size 64 --epochs 2 --train-samples 2048 \
--val-samples 512 --target-val-accuracy 0.5"
  accuracy_label="small-cnn fashion-mnist bf16 b64, 2 epochs of 2048 images (CPU rehearsal)"
else
  title="GPU validation"
  device=cuda
  budget_s=${budget_s:-540}
  no_gpu=""
  smoke_sizes="--model resnet18 --batch-size 128 --epochs 3 --steps-per-epoch 40 \
--measure-warmup-steps 10"
  smoke_optimizer="--lr 0.05 --nesterov true"
  # From scratch, ResNet-50's loss leaps to 20-80 in its first steps at lr 0.05 (measured on
  # the CPU at batch 64 and 128): a warm-up epoch and a cosine decay let it recover and learn.
  wide_image_run="--model resnet50 --image-size 64 --epochs 4 --warmup-epochs 1 --schedule cosine"
  wide_image_label=resnet50-64px
  ddpm_run="--preset small --batch-size 256 --epochs 3 --steps-per-epoch 20 \
--measure-warmup-steps 5 --train-samples 8192 --val-samples 512 --precision bf16"
  ab_sizes="--model resnet18 --batch-size 128 --epochs 1 --steps-per-epoch 70 \
--measure-warmup-steps 20"
  ab_label="resnet18-bf16-b128"
  # Issue 68's measure: at least 7 interleaved pairs (one pair moves with the machine).
  instrument_pairs=7
  instrument_bound=150
  lm_sizes="--preset small --train-samples 2048 --val-samples 32 --batch-size 16 --epochs 3 \
--steps-per-epoch 20 --measure-warmup-steps 5 --eval-batch-size 16"
  lm_label="lm-gpt2-small-bf16-b16"
  # Issue 68's open ResNet line is graph mode at batch 512 (eager: 1.29x at 128, 1.03x at 512,
  # docs/performance.md).
  side_by_side_sizes="--batches 512 --precisions bf16 --repeats 2 --steps 60 --warmup-steps 15 \
--cuda-graph"
  lm_side_by_side_sizes="--lm-batches 16 --lm-preset small --lm-precision bf16 --compile default \
--repeats 2 --steps 50 --warmup-steps 10"
  allreduce_sizes="--max-bytes 256M --iters 20 $world_of_one_flag true"
  accuracy_run="--model resnet18 --batch-size 256 --epochs 10 --eval-batch-size 1024 \
--target-val-accuracy 0.93"
  accuracy_label="resnet18 fashion-mnist bf16 b256, 10 epochs"
fi
device_flags="--device $device --data-on-device true --channels-last true --cudnn-benchmark true"

number=0
failed=0
# step NAME BOUND_S COMMAND: prints COMMAND; unless --dry-run, runs it with bash under
# min(BOUND_S, what is left of the budget), its output in $work/logs/NUMBER-NAME.log, and
# records the outcome in $work/steps.tsv.
step() {
  local name=$1 bound_s=$2 command=$3
  number=$((number + 1))
  printf '%s\n' "$command"
  [ "$dry_run" = 1 ] && return 0
  local cap_s=$bound_s limit_s=$((budget_s - SECONDS)) started=$SECONDS status=ok code=0
  [ "$rehearse" = 0 ] || cap_s=$step_cap_s
  [ "$limit_s" -le "$cap_s" ] || limit_s=$cap_s
  if [ "$limit_s" -le 0 ]; then
    status="not run: no time left"
    failed=1
  else
    # In the background: bash runs a trap only once its foreground command ends.
    timeout --kill-after=10 "$limit_s" bash -e -o pipefail -c "$command" \
      >"$work/logs/$number-$name.log" 2>&1 &
    step_pid=$!
    wait "$step_pid" || code=$?
    step_pid=""
    case $code in
      0) ;;
      124 | 137) status="timed out after $limit_s s"; failed=1 ;;
      *) status="FAILED (exit $code)"; failed=1 ;;
    esac
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$bound_s" "$((SECONDS - started))" "$status" \
    "$command" >>"$work/steps.tsv"
  echo "validate.sh: step $number $name: $status ($((SECONDS - started)) s)" >&2
  [ "$status" = ok ] || [ "${status#skipped}" != "$status" ]
}

# skip NAME BOUND_S REASON: records a step that does not run here.
skip() {
  number=$((number + 1))
  printf '# skipped %s: %s\n' "$1" "$3"
  [ "$dry_run" = 1 ] || printf '%s\t%s\t0\tskipped: %s\t\n' "$1" "$2" "$3" >>"$work/steps.tsv"
}

# smoke LABEL FLAGS...: trains with FLAGS and checks that the run learned.
smoke() {
  local label=$1
  shift
  step "smoke-$label" 30 "$train --dataset synthetic $smoke_sizes $device_flags $smoke_optimizer \
--out-dir $work/runs/$label $* && $python $kit/check_run.py $work/runs/$label \
--label $label${require_key:+ $require_key} >>$work/smoke.md" || true
}

pack() {
  printf '%s\n' "$python $kit/pack_results.py --work $work --out $out --title \"$title\""
  [ "$dry_run" = 1 ] || "$python" "$kit/pack_results.py" --work "$work" --out "$out" --title "$title"
}

# A caller's time limit (timeout's SIGTERM) still gets what has been measured: the running
# step is stopped (timeout passes the signal on to its command's process group) and the
# work folder packed.
step_pid=""
# shellcheck disable=SC2317 # called by the trap
on_signal() {
  trap - TERM INT
  echo "validate.sh: stopped by a signal after $SECONDS s; packing what there is" >&2
  [ -z "$step_pid" ] || kill -TERM "$step_pid" 2>/dev/null || true
  pack || true
  exit 124
}

if [ "$dry_run" = 0 ]; then
  if [ -d "$work" ] && [ ! -f "$work/steps.tsv" ] && [ -n "$(ls -A "$work")" ]; then
    echo "validate.sh: --work $work holds files of something else" >&2
    exit 2
  fi
  find "$work" -mindepth 1 -delete 2>/dev/null || true  # emptied, never removed and remade
  mkdir -p "$work/logs" "$work/runs" "$out"
  : >"$work/steps.tsv"
  "$python" "$kit/check_run.py" --header >"$work/smoke.md"
  trap on_signal TERM INT
fi

# The wheel's folders first (its NCCL and CUDA runtime, never a module's), then whatever
# the machine had (where a container may put the driver's libcuda).
printf '%s\n' "export LD_LIBRARY_PATH=\"\$($python $kit/wheel_library_path.py)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
if [ "$dry_run" = 0 ]; then
  wheel_folders=$("$python" "$kit/wheel_library_path.py")
  export LD_LIBRARY_PATH="$wheel_folders${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

if ! step preflight 30 "$python $kit/preflight.py${preflight_bundle:+ $preflight_bundle} --out $work/preflight.md$no_gpu"; then
  pack
  echo "validate.sh: preflight stopped the kit: $work/preflight.md, $out/validation.md" >&2
  exit 3
fi
if [ "$build_on_device" = 1 ]; then
  step configure 60 "cmake -S . -B $build_dir -G Ninja -DCMAKE_BUILD_TYPE=Release \
-DSCALESTUDY_CUDA=ON -DSCALESTUDY_ORCHESTRATOR=OFF -DSCALESTUDY_TESTS=OFF \
-DCMAKE_PREFIX_PATH=\"\$($python -c 'import torch; print(torch.utils.cmake_prefix_path)');\
\$($python -c 'import os, torch; print(os.path.dirname(torch.__file__))')\" \
-DNCCL_ROOT=\"\$($python -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])')\" \
-DCMAKE_CUDA_COMPILER=\${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" || true
  step build 420 "cmake --build $build_dir -j \"\$(nproc)\" --target scalestudy-train \
scalestudy-lm scalestudy-ddpm scalestudy-allreduce" || true
  skip gpu-suites 30 "a build on the device has no suites"
elif [ -n "$build_dir" ]; then
  step gpu-suites 30 "ctest --test-dir $build_dir -L gpu --output-on-failure" || true
else
  # 77: every case of the suite skipped (no CUDA device: the CPU rehearsal).
  step gpu-suites 30 "for suite in $bundle/gpu_*; do echo \"\$suite\"; \"\$suite\" --force-colors=0 \
|| [ \$? = 77 ]; done" || true
fi
smoke fp32 --precision fp32
smoke bf16 --precision bf16
# shellcheck disable=SC2086 # the model's flags are words
smoke "$wide_image_label" --precision bf16 $wide_image_run
step smoke-ddpm 30 "$bin/scalestudy-ddpm --dataset synthetic $ddpm_run --lr 1e-3 $device_flags \
--out-dir $work/runs/ddpm && $python $kit/check_run.py $work/runs/ddpm --label ddpm --loss-only \
>>$work/smoke.md" || true
# The bf16 run once more at learning rate 0 (the last --lr given wins): the check must reject
# it, saying the loss did not fall.
step control-no-learning 30 "$train --dataset synthetic $smoke_sizes $device_flags \
$smoke_optimizer --lr 0 --out-dir $work/runs/no-learning --precision bf16 && ! $python \
$kit/check_run.py $work/runs/no-learning --label no-learning 2>$work/no-learning.txt && grep \
-q 'training loss did not fall' $work/no-learning.txt" || true
# On the GPU through the NCCL process group of one rank, so ZeRO-1's reduce-scatter and
# all-gather run; a bundle has no gloo process group for the CPU.
lm_group=""
[ "$device" = cpu ] || lm_group=" $world_of_one_flag true"
lm_run="$bin/scalestudy-lm --dataset synthetic $lm_sizes --device $device --data-on-device \
true --precision bf16 --deterministic true$lm_group"
# A mismatch must reproduce: after one, a second ZeRO-1 run decides, and its row says so (the
# first one's reason stays in the step's log). On a loaded 2-core CPU, with AVX2's kernels and
# --deterministic, one run in about 15 took another step-1 loss, whatever the sharding.
lm_match="--lm --losses-match $work/runs/lm-none --noise-runs $work/runs/lm-none \
$work/runs/lm-none-again"
step smoke-lm 60 "for run in lm-none lm-none-again; do $lm_run --optimizer-sharding none \
--out-dir $work/runs/\$run; done && $lm_run --optimizer-sharding zero1 --out-dir $work/runs/lm \
&& { $python $kit/check_run.py $work/runs/lm --label \"$lm_label\" $lm_match >>$work/smoke.md \
|| { $lm_run --optimizer-sharding zero1 --out-dir $work/runs/lm-rerun && $python \
$kit/check_run.py $work/runs/lm-rerun --label \"$lm_label, ZeRO-1 run repeated after a \
mismatch\" $lm_match >>$work/smoke.md; }; }" || true
if [ "$device" = cuda ]; then
  require_key="--require-key loss_scale_skipped_steps" smoke fp16 --precision fp16
  smoke bf16-graph --precision bf16 --cuda-graph true
else
  skip smoke-fp16 30 "fp16 runs on CUDA only"
  skip smoke-bf16-graph 30 "CUDA graphs run on CUDA only"
fi
declared_flags=""
[ "$dry_run" = 1 ] || declared_flags=$("$train" --describe-flags json 2>/dev/null || true)
if [ "$dry_run" = 0 ] && ! grep -q "\"name\": \"${world_of_one_flag#--}\"" <<<"$declared_flags"; then
  skip smoke-bf16-one-rank-pg 30 "$train has no $world_of_one_flag"
elif [ "$device" = cpu ] && [ -z "$build_dir" ]; then
  # On the CPU the process group is gloo's, which no build against the wheel has.
  skip smoke-bf16-one-rank-pg 30 "a bundle has no gloo process group for the CPU"
else
  smoke bf16-one-rank-pg --precision bf16 "$world_of_one_flag" true
fi
step allreduce 20 "{ echo '\`\`\`'; $bin/scalestudy-allreduce --device $device $allreduce_sizes \
--out-dir $work/runs/allreduce; echo '\`\`\`'; } >$work/allreduce.md" || true
if [ -n "$data_root" ]; then
  step time-to-accuracy 90 "$train --dataset fashion-mnist --data-root $data_root $accuracy_run \
$device_flags --precision bf16 --lr 0.1 --momentum 0.9 --nesterov true --weight-decay 5e-4 \
--schedule cosine --warmup-epochs 1 --out-dir $work/runs/time-to-accuracy && $python \
$kit/time_to_accuracy.py $work/runs/time-to-accuracy --label \"$accuracy_label\" \
>$work/time_to_accuracy.md" || true
else
  skip time-to-accuracy 90 "no --data-root (Fashion-MNIST's idx files)"
fi
# side_by_side.md: the LM table, then the ResNet table before it once that step has run.
step side-by-side-lm 300 "$python $kit/side_by_side.py --binary $train --device $device \
--batches '' $lm_side_by_side_sizes --markdown $work/side_by_side_lm.md && cp \
$work/side_by_side_lm.md $work/side_by_side.md" || true
# Pairs interleaved, the order alternating, so that neither setting always runs second.
instrument_runs=""
for pair in $(seq "$instrument_pairs"); do
  instrument_runs+=" $work/runs/instrument-$pair-true $work/runs/instrument-$pair-false"
done
step instrument-ab "$instrument_bound" "for pair in \$(seq $instrument_pairs); do order='true false'; \
[ \$((pair % 2)) = 1 ] || order='false true'; for instrument in \$order; do $train --dataset synthetic \
$ab_sizes $device_flags --precision bf16 --instrument \$instrument \
--out-dir $work/runs/instrument-\$pair-\$instrument; done; done && $python $kit/instrument_overhead.py \
${instrument_runs# } --label $ab_label >$work/instrument.md" || true
step side-by-side 240 "$python $kit/side_by_side.py --binary $train --device $device \
$side_by_side_sizes --markdown $work/side_by_side_resnet.md && { cat $work/side_by_side_resnet.md; \
if [ -f $work/side_by_side_lm.md ]; then echo; cat $work/side_by_side_lm.md; fi; } \
>$work/side_by_side.md" || true
pack
[ "$dry_run" = 1 ] || echo "validate.sh: done in $SECONDS s, failed steps: $failed; table: $out/validation.md" >&2
exit "$failed"
