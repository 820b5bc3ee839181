#!/usr/bin/env bash
# The GPU kit's bundle of a CUDA build (scripts/gpu-bundle.sh --from-build), as CI checks
# it without a GPU: every library of every bundled file resolves from the bundle, the
# wheel's folders or the base system under LD_LIBRARY_PATH = those folders alone; each
# file's RPATH is $ORIGIN; bundle.json names what it was built against; the bundle stays
# well under the 64 MiB a lent machine takes; and every binary starts.
#   bundle_test.sh SOURCE_DIR BUNDLE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1
bundle=$2
build_dir=$3
kit=$source_dir/benchmarks/gpu
fail() {
  echo "bundle_test: $*" >&2
  exit 1
}

read -r -a folders <<<"$(python3 "$kit/bundle_manifest.py" folders --build-dir "$build_dir")"
env -u LD_LIBRARY_PATH python3 "$kit/bundle_libraries.py" check --bundle "$bundle" \
  --wheel-folders "${folders[@]}"

python3 - "$bundle/bundle.json" <<'EOF'
import json, sys
manifest = json.load(open(sys.argv[1]))
for key in ("torch_version", "torch_git_version", "torch_cuda_version", "nccl_version",
            "cudnn_version", "python_version", "build_type", "git_commit", "glibc_required"):
    assert manifest.get(key), f"bundle.json lacks {key}: {manifest}"
assert {"scalestudy-train", "scalestudy-lm", "scalestudy-ddpm", "scalestudy-allreduce",
        "gpu_cuda_path_test"} <= set(manifest["binaries"])
assert manifest["libraries"], "no library bundled (libsqlite3, libturbojpeg, libpng16, libz)"
EOF

bytes=$(du -sb "$bundle" | cut -f1)
[ "$bytes" -lt $((32 * 1024 * 1024)) ] || fail "$bundle takes $bytes bytes (at most 32 MiB)"

library_path=$(IFS=:; echo "${folders[*]}")
for binary in scalestudy-train scalestudy-lm scalestudy-ddpm scalestudy-allreduce; do
  env LD_LIBRARY_PATH="$library_path" "$bundle/$binary" --describe-flags json >/dev/null ||
    fail "$binary does not start from the bundle"
done
# 77: every case skipped, as a suite of CUDA cases does without a GPU (tests/support/skip.hpp).
for suite in "$bundle"/gpu_*; do
  status=0
  env LD_LIBRARY_PATH="$library_path" "$suite" --force-colors=0 >/dev/null || status=$?
  [ "$status" = 0 ] || [ "$status" = 77 ] || fail "$suite fails from the bundle (exit $status)"
done
echo "bundle_test: $bundle ($((bytes / 1024 / 1024)) MiB) loads from itself, the wheel and the base system"
