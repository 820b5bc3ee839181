#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs dependencies, builds, and runs
# every CTest suite (unit, integration, and the local SLURM cluster's when run as root).
# Then builds every target again with -DSCALESTUDY_CUDA=ON against the pinned PyTorch
# wheel's LibTorch (scripts/build-cuda.sh: compile and link, no GPU needed) and runs the
# GPU path's CPU suites from that build, then the GPU validation kit's checks on it
# (label kit: its bundle, the bundle's libraries, validate.sh's dry run and its CPU
# rehearsal, about 2 minutes); SCALESTUDY_CUDA_BUILD=0 leaves that out. Fails
# when a test fails, none ran, or the CUDA build fails.
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
  # A compile or link error there fails the suite like a failed test. The cap only guards
  # against a hang: on 2 cores the build takes about 20 minutes (docs/gpu.md).
  started=$SECONDS
  cuda_status=0
  timeout "${SCALESTUDY_CUDA_BUILD_TIMEOUT_S:-2700}" bash scripts/build-cuda.sh || cuda_status=$?
  echo "build-cuda: exit $cuda_status after $((SECONDS - started)) s (124: time cap reached)"
  if [ "$cuda_status" = 0 ] && [ -f "${SCALESTUDY_CUDA_BUILD_DIR:-build-cuda}/CTestTestfile.cmake" ]; then
    # The device-agnostic GPU-path suites once more, on the wheel's LibTorch (2.x: the fused
    # optimizer kernels, the device-side loss scaler) — on the CPU, like every CI test.
    ctest --test-dir "${SCALESTUDY_CUDA_BUILD_DIR:-build-cuda}" --no-tests=error \
      --output-on-failure -L unit -R '^gpu_' || cuda_status=$?
    # The kit as the GPU machine gets it: scripts/gpu-bundle.sh --from-build on this build,
    # its libraries resolved without the build's paths, and the kit rehearsed on the CPU.
    ctest --test-dir "${SCALESTUDY_CUDA_BUILD_DIR:-build-cuda}" --no-tests=error \
      --output-on-failure -L kit || cuda_status=$?
  fi
  [ "$tests_status" != 0 ] || tests_status=$cuda_status
fi
exit "$tests_status"
