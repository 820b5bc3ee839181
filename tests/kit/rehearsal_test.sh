#!/usr/bin/env bash
# The GPU kit end to end on the CPU: `validate.sh --rehearse-on-cpu` with the CUDA build's
# bundle and the wheel's Python — every step passes or is skipped (CUDA only), and what
# comes back keeps the 8-file, one-folder rule, the time-to-accuracy step on Debian's
# Fashion-MNIST (a prerequisite: scripts/install-deps.sh). The steps' wall seconds are in
# OUT/validation.md (docs/gpu.md estimates the device time from them); no time is asserted.
# First the same bundle with another torch version in its bundle.json: preflight must stop
# the kit (exit 3) before any other step, and still pack what it wrote. Then a kit stopped
# by SIGTERM (a caller's time limit) in its third step must pack the steps it finished.
#   rehearsal_test.sh SOURCE_DIR BUNDLE_DIR PYTHON OUT_DIR
set -euo pipefail
source_dir=$1
bundle=$2
python=$3
out=$4
work=$out-work
rm -rf "$out" "$work" "$out-stop" "$work-stop" "$out-bundle" "$out-term" "$work-term"
fail() {
  echo "rehearsal_test: $*" >&2
  exit 1
}

cp -r "$bundle" "$out-bundle"
sed -i 's/"torch_version": "[^"]*"/"torch_version": "0.0.0+other"/' "$out-bundle/bundle.json"
status=0
bash "$source_dir/benchmarks/gpu/validate.sh" --rehearse-on-cpu --bundle "$out-bundle" \
  --python "$python" --out "$out-stop" --work "$work-stop" || status=$?
[ "$status" = 3 ] || fail "a torch mismatch did not stop the kit (exit $status)"
grep -q 'STOP: .* has torch 2.*, the bundle was built against 0.0.0+other' \
  "$out-stop/validation.md" || fail "no torch mismatch in $out-stop/validation.md"
[ "$(wc -l <"$work-stop/steps.tsv")" = 1 ] || fail "steps ran after preflight stopped"
rm -rf "$out-bundle" "$out-stop" "$work-stop"

bash "$source_dir/benchmarks/gpu/validate.sh" --rehearse-on-cpu --bundle "$bundle" \
  --python "$python" --out "$out-term" --work "$work-term" 2>"$out-term.log" &
kit_pid=$!
for _ in $(seq 600); do
  [ "$(wc -l <"$work-term/steps.tsv" 2>/dev/null || echo 0)" -lt 2 ] || break
  sleep 0.2
done
kill -TERM "$kit_pid"
status=0
wait "$kit_pid" || status=$?
[ "$status" = 124 ] || fail "a kit stopped by SIGTERM exited $status, not 124"
grep -q '| preflight | 30 | [0-9]* | ok |' "$out-term/validation.md" ||
  fail "a kit stopped by SIGTERM packed no finished step"
grep -q 'stopped by a signal' "$out-term.log" || fail "no word of the signal"
rm -rf "$out-term" "$work-term" "$out-term.log"

fashion_mnist=/usr/share/datasets/fashion-mnist
[ -f "$fashion_mnist/train-images-idx3-ubyte.gz" ] ||
  fail "no $fashion_mnist (apt-get install dataset-fashion-mnist)"
status=0
bash "$source_dir/benchmarks/gpu/validate.sh" --rehearse-on-cpu --bundle "$bundle" \
  --python "$python" --data-root "$fashion_mnist" --out "$out" --work "$work" || status=$?
cat "$out/validation.md"
[ "$status" = 0 ] || fail "validate.sh exited $status"
"$python" -c 'import sys
sys.path.insert(0, sys.argv[1])
import pack_results
breaks = pack_results.rule_breaks(sys.argv[2])
sys.exit("; ".join(breaks) if breaks else 0)' "$source_dir/benchmarks/gpu" "$out"
grep -q '| smoke-fp32 | 30 | [0-9]* | ok |' "$out/validation.md" || fail "no passing fp32 smoke run"
grep -q '| time-to-accuracy | 90 | [0-9]* | ok |' "$out/validation.md" ||
  fail "no passing time-to-accuracy run"
[ -f "$out/time_to_accuracy.md" ] || fail "no time_to_accuracy.md came back"
echo "rehearsal_test: every step passed or was skipped; $out keeps the rule"
