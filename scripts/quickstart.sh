#!/usr/bin/env bash
# The main job: installs dependencies, builds, and runs the quickstart study (a small
# CPU strong-scaling study, 1 and 2 ranks) on the embedded local executor, ending in its
# efficiency table. Plots land in results/quickstart/report/. It builds only the CLI and
# the workloads the study runs and leaves the build folder's test setting as it is, so
# scripts/test.sh in the same folder still builds and runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
build_dir=${SCALESTUDY_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build_dir" -j "$(nproc)" --target scalestudy scalestudy-launch scalestudy-train
exec "$build_dir/bin/scalestudy" run studies/quickstart.yaml --scheduler local "$@"
