#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs dependencies, builds, and runs
# every CTest suite (unit, integration, and the local SLURM cluster's when run as root).
# Then builds every target again with -DSCALESTUDY_CUDA=ON against the pinned PyTorch
# wheel's LibTorch (scripts/build-cuda.sh: compile and link only, no GPU needed);
# SCALESTUDY_CUDA_BUILD=0 leaves that out. Fails when a test fails or none ran.
# Tests are configured on even in a build folder configured without them, and a run in
# which no test ran fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
build_dir=${SCALESTUDY_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCALESTUDY_TESTS=ON
cmake --build "$build_dir" -j "$(nproc)"
tests_status=0
ctest --test-dir "$build_dir" --no-tests=error --output-on-failure -j "$(nproc)" "$@" || tests_status=$?
if [ "${SCALESTUDY_CUDA_BUILD:-1}" != 0 ]; then
  # The CUDA build has not yet been seen through to the end on CI's 2 cores: until it has,
  # it runs under a 15-minute cap and reports its outcome without failing the suite.
  started=$SECONDS
  cuda_status=0
  timeout "${SCALESTUDY_CUDA_BUILD_TIMEOUT_S:-900}" bash scripts/build-cuda.sh || cuda_status=$?
  echo "build-cuda: exit $cuda_status after $((SECONDS - started)) s (124: time cap reached)"
fi
exit "$tests_status"
