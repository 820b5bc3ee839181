"""Runs a test of the Python package with the venv scripts/python-venv.sh makes:
run_in_venv.py VENV_PYTHON SCRIPT [ARGS...]. Without the venv the test is skipped (exit
77, CTest's SKIP_RETURN_CODE) -- except where every prerequisite must be present (CI=true,
or root on Debian, where scripts/test.sh has run python-venv.sh), where it fails saying
why. The package is imported from the checkout (PYTHONPATH=python/)."""

import os
import sys


def prerequisites_required():
    return os.environ.get("CI") == "true" or (os.geteuid() == 0
                                              and os.path.exists("/etc/debian_version"))


def main():
    venv_python, script = sys.argv[1], sys.argv[2]
    if not os.access(venv_python, os.X_OK):
        reason = "no Python venv at %s (bash scripts/python-venv.sh)" % venv_python
        if prerequisites_required():
            print("not skipped, since every prerequisite must be installed here (CI=true or "
                  "root on Debian): " + reason, file=sys.stderr)
            return 1
        print("skipped: " + reason)
        return 77
    source = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(source, "python"), os.path.join(source, "tests", "python")]
        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("SCALESTUDY_SOURCE_DIR", source)
    env.setdefault("MPLBACKEND", "Agg")
    os.execve(venv_python, [venv_python, script] + sys.argv[3:], env)


if __name__ == "__main__":
    sys.exit(main())
