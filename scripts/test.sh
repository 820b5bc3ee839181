#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs dependencies, builds, and runs
# every CTest suite (unit, integration, and the local SLURM cluster's when run as root).
# Tests are configured on even in a build folder configured without them, and a run in
# which no test ran fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
build_dir=${SCALESTUDY_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCALESTUDY_TESTS=ON
cmake --build "$build_dir" -j "$(nproc)"
ctest --test-dir "$build_dir" --no-tests=error --output-on-failure -j "$(nproc)" "$@"
