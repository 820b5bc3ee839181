#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs dependencies (and Apache Otava
# from PyPI for the change point cross-check, scripts/otava-venv.sh, the pinned PyTorch
# wheel, scripts/torch-venv.sh, and the Python package's pinned pandas, matplotlib, MLflow
# and Jupyter, scripts/python-venv.sh; these three while the build compiles), builds, and
# runs every CTest suite (unit, integration, and the local SLURM clusters' when run as
# root; docs/building.md).
# Then builds every target again with -DSCALESTUDY_CUDA=ON against the pinned PyTorch
# wheel's LibTorch (scripts/build-cuda.sh: compile and link, no GPU needed) and runs the
# GPU path's CPU suites from that build, then the GPU validation kit's checks on it
# (label kit: its bundle, the bundle's libraries, validate.sh's dry run and its CPU
# rehearsal, about 2 minutes), and, on a CPU beyond AVX2, the suites and the rehearsal again
# with the CPU kernels capped at AVX2 (ONEDNN_MAX_CPU_ISA, ATEN_CPU_CAPABILITY);
# SCALESTUDY_CUDA_BUILD=0 leaves that out. Fails
# when a test fails, none ran, or the CUDA build fails, cannot run (no toolkit, no wheel)
# or leaves no tests to run.
# Ends by listing every test that skipped anything, with the reasons: where every
# prerequisite must be present (CI=true, or root on Debian) only what this machine cannot
# have may skip (no CUDA device, say); a missing prerequisite fails (tests/support/skip.hpp).
# Tests are configured on even in a build folder configured without them, and a run in
# which no test ran fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
# The virtual environments and the newer SLURM releases download and unpack (network and
# disk, about 6 GB) while the build compiles; the tests wait for them. Each one missing fails only its tests, saying so:
# Apache Otava, the change point cross-check; the pinned PyTorch wheel, the CUDA build's
# LibTorch and the GPT example's DDP and FSDP2 test; pandas, matplotlib, MLflow, nbclient
# and ipykernel, the Python package's suites (tests/python).
venvs_log=$(mktemp)
{
  bash scripts/otava-venv.sh || echo "test.sh: no Apache Otava venv; its cross-check will fail"
  bash scripts/torch-venv.sh || echo "test.sh: no PyTorch venv; the GPT example's test will fail"
  bash scripts/python-venv.sh || echo "test.sh: no Python package venv; tests/python will fail"
  # The newer SLURM releases' roots (Debian's packages, about a minute each, once; kept in
  # .deps/) for their clusters, which start when ctest does.
  if [ "$(id -u)" -eq 0 ]; then
    for release in 24.11 26.05; do
      SCALESTUDY_SLURM_VERSION=$release bash slurm/cluster/start.sh --unpack-only ||
        echo "test.sh: SLURM $release not unpacked; its cluster's start will say why"
    done
  fi
} >"$venvs_log" 2>&1 &
venvs=$!
build_dir=${SCALESTUDY_BUILD_DIR:-build}
build_status=0
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCALESTUDY_TESTS=ON &&
  cmake --build "$build_dir" -j "$(nproc)" || build_status=$?
wait "$venvs"
cat "$venvs_log"
rm -f "$venvs_log"
[ "$build_status" = 0 ] || exit "$build_status"
tests_status=0
junit_files=()
# ctest_run BUILD_DIR NAME ARGS...: ctest with a JUnit record (BUILD_DIR/NAME.junit.xml) of
# what ran and what skipped; a passed test's whole output is kept (ctest keeps 1 KiB by
# default), so every "skipped:" line it printed reaches the list at the end.
ctest_run() {
  local dir=$1 name=$2 status=0
  shift 2
  rm -f "$dir/$name.junit.xml"
  ctest --test-dir "$dir" --no-tests=error --output-on-failure --output-junit "$name.junit.xml" \
    --test-output-size-passed 1048576 "$@" || status=$?
  [ ! -f "$dir/$name.junit.xml" ] || junit_files+=("$dir/$name.junit.xml")
  return "$status"
}
# Every test but the SLURM clusters' suites takes one of the cores' slots
# (scalestudy_tests_take_a_core, cmake/ScalestudyTest.cmake); ctest runs one job more than
# there are cores for each of the four clusters (22.05 twice, 24.11, 26.05;
# tests/sched/CMakeLists.txt), so their suites, which mostly wait on the scheduler, run
# beside as many CPU-bound tests as there are cores.
cores=$(nproc)
resource_spec=$(cd "$build_dir" && pwd)/ctest-resources.json
printf '{"version": {"major": 1, "minor": 0}, "local": [{"cores": [{"id": "host", "slots": %d}]}]}\n' \
  "$cores" >"$resource_spec"
ctest_run "$build_dir" all -j "$((cores + 4))" --resource-spec-file "$resource_spec" "$@" ||
  tests_status=$?
if [ "${SCALESTUDY_CUDA_BUILD:-1}" != 0 ]; then
  # A compile or link error there fails the suite like a failed test. The cap only guards
  # against a hang: on 2 cores the build takes about 3 minutes (docs/building.md).
  started=$SECONDS
  cuda_status=0
  timeout "${SCALESTUDY_CUDA_BUILD_TIMEOUT_S:-2700}" bash scripts/build-cuda.sh || cuda_status=$?
  echo "build-cuda: exit $cuda_status after $((SECONDS - started)) s (124: time cap reached)"
  cuda_dir=${SCALESTUDY_CUDA_BUILD_DIR:-build-cuda}
  # A build with no tests registered would skip the GPU, kit and AVX2 suites unseen.
  if [ "$cuda_status" = 0 ] && [ ! -f "$cuda_dir/CTestTestfile.cmake" ]; then
    echo "test.sh: $cuda_dir has no CTestTestfile.cmake (configured without tests?): its GPU, kit and AVX2 suites cannot run"
    cuda_status=1
  fi
  if [ "$cuda_status" = 0 ]; then
    # The device-agnostic GPU-path suites once more, on the wheel's LibTorch (2.x: the fused
    # optimizer kernels, the device-side loss scaler) — on the CPU, like every CI test.
    ctest_run "$cuda_dir" gpu -L unit -R '^gpu_' || cuda_status=$?
    # The kit as the GPU machine gets it: scripts/gpu-bundle.sh --from-build on this build,
    # its libraries resolved without the build's paths, and the kit rehearsed on the CPU.
    ctest_run "$cuda_dir" kit -L kit || cuda_status=$?
    # Once more with the CPU kernels an AVX2-only machine runs: oneDNN and ATen dispatch by
    # ISA, and bf16 differs most (AVX-512 BF16 and AMX compute it, AVX2 emulates it). The
    # GPU path's suites (CPU bf16 autocast among them) and the kit's rehearsal, about 3 min.
    # A CPU with none of AVX-512, AVX-VNNI and AMX ran AVX2's kernels just now.
    if grep -qwE 'avx512f|avx_vnni|amx_bf16' /proc/cpuinfo; then
      ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 ctest_run \
        "$cuda_dir" avx2 -L 'unit|kit' -R '^gpu_|^kit_rehearsal_test$' ||
        cuda_status=$?
    else
      echo "test.sh: this CPU has no AVX-512, AVX-VNNI or AMX: the GPU suites and the kit ran on AVX2's kernels above"
    fi
  fi
  [ "$tests_status" != 0 ] || tests_status=$cuda_status
fi
[ ${#junit_files[@]} -eq 0 ] || python3 tests/support/list_skipped_tests.py "${junit_files[@]}"
exit "$tests_status"
