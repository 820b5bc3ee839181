"""Running the `scalestudy` CLI and reading its JSON: the package's only way to plan,
submit, run, report and read history, so that Python adds no second implementation of
any of them.

The binary is, in order: the `cli` argument, $SCALESTUDY_CLI, `scalestudy` on PATH, or
build/bin/scalestudy of the checkout this package is imported from (python/scalestudy/ of
a repository), where scripts/quickstart.sh leaves it. Never a build/bin found by walking
up from the results or the working directory: on a shared filesystem that could be
anybody's binary (docs/security.md). Standard library only.
"""

import json
import os
import shutil
import subprocess


class CliError(RuntimeError):
    """The CLI exited with a status its caller did not accept; carries its output."""

    def __init__(self, argv, returncode, stdout, stderr):
        self.argv, self.returncode, self.stdout, self.stderr = argv, returncode, stdout, stderr
        detail = (stderr or stdout or "").strip().splitlines()[-20:]
        super().__init__("%s exited %d%s" % (" ".join(argv), returncode,
                                             ":\n  " + "\n  ".join(detail) if detail else ""))


def _checkout_build():
    """build/bin/scalestudy of the repository holding this package's source, or None when
    the package is installed elsewhere (a venv's site-packages)."""
    package = os.path.dirname(os.path.abspath(__file__))
    python_dir = os.path.dirname(package)
    if os.path.basename(python_dir) != "python":
        return None
    root = os.path.dirname(python_dir)
    if not os.path.isfile(os.path.join(root, "CMakeLists.txt")):
        return None
    return os.path.join(root, "build", "bin", "scalestudy")


def find_cli(cli=None):
    """The path of the scalestudy binary (see the module's doc); FileNotFoundError naming
    where it looked when there is none."""
    if cli:
        return cli
    if os.environ.get("SCALESTUDY_CLI"):
        return os.environ["SCALESTUDY_CLI"]
    found = shutil.which("scalestudy")
    if found:
        return found
    looked = ["$SCALESTUDY_CLI", "PATH"]
    candidate = _checkout_build()
    if candidate:
        if os.access(candidate, os.X_OK):
            return candidate
        looked.append(candidate)
    raise FileNotFoundError("no scalestudy binary: looked at " + ", ".join(looked)
                            + " (build it with scripts/quickstart.sh, or set SCALESTUDY_CLI)")


def run(args, cli=None, ok=(0,), capture=True, timeout=None):
    """Runs `scalestudy ARGS...`; returns (returncode, stdout, stderr). Raises CliError
    when the exit status is not in `ok`."""
    argv = [find_cli(cli)] + [str(a) for a in args]
    done = subprocess.run(argv, stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.PIPE if capture else None, text=True,
                          timeout=timeout)
    if done.returncode not in ok:
        raise CliError(argv, done.returncode, done.stdout, done.stderr)
    return done.returncode, done.stdout, done.stderr


def run_json(args, cli=None, ok=(0,), timeout=None):
    """Runs the CLI with arguments that make it print one JSON document; returns it parsed."""
    returncode, stdout, stderr = run(args, cli, ok, timeout=timeout)
    try:
        return json.loads(stdout)
    except ValueError as error:
        raise CliError([find_cli(cli)] + list(args), returncode,
                       "not JSON (%s): %s" % (error, stdout[:500]), stderr) from None
