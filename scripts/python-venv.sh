#!/usr/bin/env bash
# Installs what the Python package `scalestudy` (python/, docs/python.md) is tested with,
# from PyPI into a git-ignored virtual environment (.deps/python-venv): pandas and
# matplotlib (its DataFrames and plots), MLflow (the export, and the real `mlflow server`
# its test starts), nbclient, nbformat and ipykernel (the notebook test runs
# examples/notebooks/scaling.ipynb on a real Jupyter kernel), hydra-core (the Hydra
# application tests/workloads/scripts/hydra_app.py that the flag-form test drives), py-spy
# (scalestudy-launch's hang watchdog dumps a Python rank's stacks with it; docs/failures.md).
# Pinned versions; idempotent
# (a venv holding them is left alone). The package itself is not installed: the tests import
# it from python/ (PYTHONPATH), so they test the checkout. Fails (exit 1) saying why.
#   SCALESTUDY_PYTHON_VENV  where it is installed (default .deps/python-venv)
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${SCALESTUDY_PYTHON_VENV:-.deps/python-venv}
python=$venv/bin/python
requirements=(
  pandas==3.1.1
  matplotlib==3.11.2
  mlflow==3.17.2
  nbclient==0.11.0
  nbformat==5.11.1
  ipykernel==7.4.0
  hydra-core==1.3.8
  py-spy==0.4.3
)
if "$python" -c "import importlib.metadata as m, sys
pins = dict(r.split('==') for r in sys.argv[1:])
sys.exit(any(m.version(name) != version for name, version in pins.items()))" \
  "${requirements[@]}" 2>/dev/null; then
  exit 0
fi
/usr/bin/python3 -m venv "$venv" || {
  echo "python-venv: cannot create a virtual environment at $venv (apt-get install python3-venv)" >&2
  exit 1
}
"$python" -m pip install --quiet --disable-pip-version-check "${requirements[@]}" || {
  echo "python-venv: cannot install ${requirements[*]} from PyPI into $venv" >&2
  exit 1
}
# The notebook test's kernel: this venv's Python, registered inside the venv only.
"$python" -m ipykernel install --sys-prefix --name python3 >/dev/null || {
  echo "python-venv: cannot register the venv's Jupyter kernel (ipykernel install)" >&2
  exit 1
}
