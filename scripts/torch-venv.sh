#!/usr/bin/env bash
# Installs the pinned PyTorch wheel from PyPI into a git-ignored virtual environment
# (.deps/torch-venv): the LibTorch that scripts/build-cuda.sh builds against (CUDA, cuDNN
# and NCCL libraries that link without a device) and the Python that runs the GPT example's
# DDP and FSDP2 test (tests/study/python_gpt_example_test.cpp). Idempotent; fails (exit 1)
# saying why.
#   SCALESTUDY_TORCH_VERSION  the pinned wheel (default 2.11.0)
#   SCALESTUDY_TORCH_VENV     where it is installed (default .deps/torch-venv)
set -euo pipefail
cd "$(dirname "$0")/.."

torch_version=${SCALESTUDY_TORCH_VERSION:-2.11.0}
venv=${SCALESTUDY_TORCH_VENV:-.deps/torch-venv}
python=$venv/bin/python
if "$python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" \
  2>/dev/null; then
  exit 0
fi
/usr/bin/python3 -m venv "$venv" || {
  echo "torch-venv: cannot create a virtual environment at $venv (apt-get install python3-venv)" >&2
  exit 1
}
"$python" -m pip install --quiet "torch==$torch_version" || {
  echo "torch-venv: cannot install torch==$torch_version from PyPI into $venv" >&2
  exit 1
}
