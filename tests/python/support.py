"""What the Python package's tests share: the CLI under test, and the results of a small
real study (tests/python/tiny.yaml: 1 and 3 ranks, two campaigns, default and "b") run
through that CLI on the local executor. CTest makes the results once (the fixture test
python_fixture_results, fixture.py); a test run by hand makes them when they are missing."""

import os
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = os.environ.get("SCALESTUDY_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
STUDY_YAML = "tests/python/tiny.yaml"
STUDY = "pytiny"
CAMPAIGNS = ("default", "b")
RANKS = {1: 1, 3: 3}  # world size -> ranks recorded


def cli():
    """The scalestudy binary under test: $SCALESTUDY_CLI (CTest sets the build's), else
    build/bin's."""
    path = os.environ.get("SCALESTUDY_CLI") or os.path.join(SOURCE_DIR, "build", "bin",
                                                            "scalestudy")
    if not os.access(path, os.X_OK):
        raise RuntimeError("no scalestudy binary at %s (set SCALESTUDY_CLI)" % path)
    return path


def results_dir():
    """The fixture's results dir, made when it is not there yet."""
    path = os.environ.get("SCALESTUDY_TEST_RESULTS") or os.path.join(
        tempfile.gettempdir(), "scalestudy-python-tests-%d" % os.getuid(), "results")
    if not os.path.exists(os.path.join(path, ".ready")):
        make_results(path)
    return path


def make_results(path):
    """Runs the study twice (campaigns default and b) into `path`; each must complete."""
    if os.path.exists(path):
        subprocess.run(["rm", "-rf", path], check=True)
    os.makedirs(path)
    started = time.monotonic()
    for campaign in CAMPAIGNS:
        argv = [cli(), "run", STUDY_YAML, "--scheduler", "local", "--results-dir", path,
                "--no-plots"] + ([] if campaign == "default" else ["--campaign", campaign])
        done = subprocess.run(argv, cwd=SOURCE_DIR, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stdout)
            raise RuntimeError("%s exited %d" % (" ".join(argv), done.returncode))
    with open(os.path.join(path, ".ready"), "w") as marker:
        marker.write("%.1f s\n" % (time.monotonic() - started))
