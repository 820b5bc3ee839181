#!/usr/bin/env bash
# Compiles and links every target with -DSCALESTUDY_CUDA=ON against the LibTorch inside the
# pinned PyTorch wheel — the one the GPU machines run — so API differences and link errors
# surface in CI, without a GPU (nothing here runs a test). The wheel goes into a git-ignored
# virtual environment (.deps/torch-venv); it carries LibTorch with CUDA, cuDNN and NCCL,
# which link without a device. nvcc and the CUDA headers come from the toolkit at
# CUDA_HOME (default /usr/local/cuda), whose major version must match the wheel's (CUDA 13).
# Skips (exit 0, with the reason) only when the wheel cannot be installed or no toolkit is
# installed; any configure, compile or link error fails.
#   SCALESTUDY_TORCH_VERSION  the pinned wheel (default 2.11.0)
#   SCALESTUDY_TORCH_VENV     where it is installed (default .deps/torch-venv)
#   SCALESTUDY_CUDA_BUILD_DIR the build folder (default build-cuda)
set -euo pipefail
cd "$(dirname "$0")/.."

torch_version=${SCALESTUDY_TORCH_VERSION:-2.11.0}
venv=${SCALESTUDY_TORCH_VENV:-.deps/torch-venv}
build_dir=${SCALESTUDY_CUDA_BUILD_DIR:-build-cuda}
cuda_home=${CUDA_HOME:-/usr/local/cuda}

skip() {
  echo "build-cuda: SKIPPED, the CUDA build was not checked: $*" >&2
  exit 0
}

[ -x "$cuda_home/bin/nvcc" ] || skip "no CUDA toolkit at $cuda_home (set CUDA_HOME)"
python=$venv/bin/python
if ! "$python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" \
  2>/dev/null; then
  /usr/bin/python3 -m venv "$venv" || skip "cannot create a virtual environment at $venv"
  "$python" -m pip install --quiet "torch==$torch_version" ||
    skip "cannot install torch==$torch_version from PyPI"
fi

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
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-DNDEBUG \
  -DSCALESTUDY_CUDA=ON \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$torch_root" \
  -DTorch_DIR="$torch_prefix/Torch" \
  -DCaffe2_DIR="$torch_prefix/Caffe2" \
  -DNCCL_ROOT="$nccl_root" \
  -DCUDAToolkit_ROOT="$cuda_home" \
  -DCMAKE_CUDA_COMPILER="$cuda_home/bin/nvcc"
cmake --build "$build_dir" -j "$(nproc)"
echo "build-cuda: every target compiled and linked with SCALESTUDY_CUDA=ON"
