"""`pip install ./python` into a fresh venv, as a user does, then the package outside the
checkout: the schema files came along (the import checks against them), scalestudy_record
still imports, and the study's points print -- issue 55's one-liner, on the tests' study.
pandas and matplotlib at the versions scripts/python-venv.sh pins (pip's cache makes
them quick)."""

import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import support

PINS = ["pandas==3.1.1", "matplotlib==3.11.2"]


class PackageInstallTest(unittest.TestCase):
    def test_pip_install_then_the_points_print(self):
        folder = tempfile.mkdtemp(prefix="scalestudy-pip-")
        self.addCleanup(shutil.rmtree, folder, True)
        venv = os.path.join(folder, "venv")
        started = time.monotonic()
        subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        # From a copy: setuptools builds in the source folder (build/, *.egg-info).
        source = os.path.join(folder, "python")
        shutil.copytree(os.path.join(support.SOURCE_DIR, "python"), source,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        source] + PINS, check=True)
        print("fresh venv and pip install ./python: %.1f s" % (time.monotonic() - started))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["SCALESTUDY_CLI"] = support.cli()
        program = ("import scalestudy, scalestudy_record, os\n"
                   "assert 'site-packages' in scalestudy.__file__, scalestudy.__file__\n"
                   "assert os.path.isfile(scalestudy.schema.path('run.sql'))\n"
                   "print(scalestudy.open(%r).study(%r).points())\n"
                   % (support.results_dir(), support.STUDY))
        done = subprocess.run([python, "-c", program], cwd=folder, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        print(done.stdout)
        lines = done.stdout.splitlines()
        self.assertIn("world_size", lines[0])
        rows = [line.split() for line in lines if re.match(r"^\d+\s+\d+\s", line)]
        self.assertEqual([row[:2] for row in rows], [["0", "1"], ["1", "3"]])  # the two points


if __name__ == "__main__":
    unittest.main()
