#!/usr/bin/env bash
# benchmarks/gpu/validate.sh on a machine without a GPU: it parses (bash -n), passes
# shellcheck, and --dry-run prints every step's command — build, GPU suites, the four
# smoke trainings, the instrumentation A/B, the side-by-side, the table — and runs none.
set -euo pipefail
source_dir=$1
script=$source_dir/benchmarks/gpu/validate.sh
bash -n "$script"
shellcheck "$script" "$source_dir/scripts/build-cuda.sh" "$source_dir/scripts/test.sh"
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
printed=$(bash "$script" --dry-run --out "$out_dir/validation")
fail() {
  echo "validate.sh --dry-run: $*" >&2
  echo "$printed" >&2
  exit 1
}
[ "$(wc -l <<<"$printed")" -eq 12 ] || fail "expected 12 commands"
grep -q -- '-DSCALESTUDY_CUDA=ON' <<<"$printed" || fail "no CUDA configure"
grep -q -- 'ctest --test-dir build-cuda -L gpu' <<<"$printed" || fail "no GPU suites"
for precision in fp32 bf16 fp16 bf16-graph; do
  grep -q -- "--out-dir $out_dir/validation/runs/$precision " <<<"$printed" ||
    fail "no $precision smoke training"
done
grep -q -- '--require-key loss_scale_skipped_steps' <<<"$printed" || fail "fp16 skips unchecked"
grep -q -- '--instrument \$instrument' <<<"$printed" || fail "no instrumentation A/B"
grep -q -- 'side_by_side.py .*--batches 128,512' <<<"$printed" || fail "no side-by-side"
grep -q -- "> $out_dir/validation/validation.md" <<<"$printed" || fail "no table"
[ ! -e "$out_dir/validation" ] || fail "a dry run wrote $out_dir/validation"
echo "validate.sh --dry-run: 12 commands, nothing run"
