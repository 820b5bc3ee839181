#!/usr/bin/env bash
# Installs Apache Otava, the reference implementation of the change point method `scalestudy
# history` uses, from PyPI into a git-ignored virtual environment (.deps/otava-venv), for
# the cross-check test that runs both on the same series (tests/results/
# change_points_otava_test.cpp). Nothing at run time needs it. Fails (exit 1) saying why.
#   SCALESTUDY_OTAVA_VERSION  the pinned release (default 0.8.0)
#   SCALESTUDY_OTAVA_VENV     where it is installed (default .deps/otava-venv)
set -euo pipefail
cd "$(dirname "$0")/.."

version=${SCALESTUDY_OTAVA_VERSION:-0.8.0}
venv=${SCALESTUDY_OTAVA_VENV:-.deps/otava-venv}
python=$venv/bin/python
if "$python" -c "import importlib.metadata as m, sys
sys.exit(m.version('apache-otava') != '$version')" 2>/dev/null; then
  exit 0
fi
/usr/bin/python3 -m venv "$venv" || {
  echo "otava-venv: cannot create a virtual environment at $venv (apt-get install python3-venv)" >&2
  exit 1
}
"$python" -m pip install --quiet "apache-otava==$version" || {
  echo "otava-venv: cannot install apache-otava==$version from PyPI into $venv" >&2
  exit 1
}
