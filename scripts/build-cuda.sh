#!/usr/bin/env bash
# Compiles and links the LibTorch targets with -DSCALESTUDY_CUDA=ON against the LibTorch
# inside the pinned PyTorch wheel — the one the GPU machines run — so API differences and link errors
# surface in CI, without a GPU (nothing here runs a test). The wheel goes into a git-ignored
# virtual environment (.deps/torch-venv); it carries LibTorch with CUDA, cuDNN and NCCL,
# which link without a device. nvcc and the CUDA headers come from the toolkit at
# CUDA_HOME (default /usr/local/cuda), whose major version must match the wheel's (CUDA 13).
# Fails (exit 1, saying what to install) when the toolkit or the wheel is missing, like any
# configure, compile or link error: scripts/test.sh then never runs the suites of an older
# build-cuda. SCALESTUDY_CUDA_BUILD=0 in scripts/test.sh leaves the CUDA build out instead.
#   SCALESTUDY_TORCH_VERSION  the pinned wheel (default 2.11.0)
#   SCALESTUDY_TORCH_VENV     where it is installed (default .deps/torch-venv)
#   SCALESTUDY_CUDA_BUILD_DIR the build folder (default build-cuda)
set -euo pipefail
cd "$(dirname "$0")/.."

torch_version=${SCALESTUDY_TORCH_VERSION:-2.11.0}
venv=${SCALESTUDY_TORCH_VENV:-.deps/torch-venv}
build_dir=${SCALESTUDY_CUDA_BUILD_DIR:-build-cuda}
cuda_home=${CUDA_HOME:-/usr/local/cuda}

missing() {
  echo "build-cuda: FAILED, the CUDA build cannot be checked: $*" >&2
  echo "build-cuda: (SCALESTUDY_CUDA_BUILD=0 scripts/test.sh leaves the CUDA build out)" >&2
  exit 1
}

[ -x "$cuda_home/bin/nvcc" ] ||
  missing "no CUDA toolkit at $cuda_home: install CUDA 13's nvcc and headers, or set CUDA_HOME"
python=$venv/bin/python
SCALESTUDY_TORCH_VERSION=$torch_version SCALESTUDY_TORCH_VENV=$venv bash scripts/torch-venv.sh ||
  missing "no torch==$torch_version in $venv (scripts/torch-venv.sh)"

torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
torch_root=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
nccl_root=$("$python" -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])')
echo "build-cuda: torch $("$python" -c 'import torch; print(torch.__version__)'), $("$cuda_home/bin/nvcc" --version | tail -n 1)"
# Debian's libtorch-dev (the CPU build's) is installed too: the wheel's prefixes go first
# in CMAKE_PREFIX_PATH so that TorchConfig's find_library calls and Caffe2Config take the
# wheel's libraries, never /usr/lib's. A compile-and-link check: build type None (no
# optimisation, no debug info) is the fastest. NDEBUG as in every release build: without it
# torch's debug-only asserts fire inside the FLOP counter's dispatch and the kit's rehearsal
# from this build would record no forward_flops.
# Only what CUDA changes: the harness, the workloads, the GPU suites and the kit's checks; the
# orchestrator never links LibTorch, so the CPU build has already checked it.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-DNDEBUG \
  -DSCALESTUDY_CUDA=ON -DSCALESTUDY_ORCHESTRATOR=OFF \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$torch_root" \
  -DTorch_DIR="$torch_prefix/Torch" \
  -DCaffe2_DIR="$torch_prefix/Caffe2" \
  -DNCCL_ROOT="$nccl_root" \
  -DCUDAToolkit_ROOT="$cuda_home" \
  -DCMAKE_CUDA_COMPILER="$cuda_home/bin/nvcc"
cmake --build "$build_dir" -j "$(nproc)"
echo "build-cuda: every LibTorch target compiled and linked with SCALESTUDY_CUDA=ON"
