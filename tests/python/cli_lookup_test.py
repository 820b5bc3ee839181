"""Where the package finds the scalestudy binary: never a build/bin/scalestudy found by
walking up from the working directory (on a shared filesystem someone else's
/scratch/build/bin/scalestudy would run as the user), only $SCALESTUDY_CLI, PATH, or the
build of the checkout the package is imported from."""

import os
import stat
import tempfile
import unittest
from unittest import mock

import support
from scalestudy import cli


class CliLookupTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.addCleanup(self.scratch.cleanup)
        root = self.scratch.name
        # Another user's planted binary above the results, which would leave a marker.
        self.planted = os.path.join(root, "build", "bin", "scalestudy")
        os.makedirs(os.path.dirname(self.planted))
        with open(self.planted, "w") as script:
            script.write("#!/bin/sh\ntouch %s/MARKER\n" % root)
        os.chmod(self.planted, stat.S_IRWXU)
        self.results = os.path.join(root, "project", "results")
        os.makedirs(self.results)
        self.empty_path = os.path.join(root, "no-binaries")
        os.makedirs(self.empty_path)
        cwd = os.getcwd()
        self.addCleanup(os.chdir, cwd)
        os.chdir(self.results)

    def lookup(self):
        with mock.patch.dict(os.environ, {"PATH": self.empty_path}):
            os.environ.pop("SCALESTUDY_CLI", None)
            try:
                return cli.find_cli()
            except FileNotFoundError as missing:
                return str(missing)

    def test_a_binary_above_the_working_directory_is_never_chosen(self):
        found = self.lookup()
        self.assertNotIn(self.planted, found)
        checkout_build = os.path.join(support.SOURCE_DIR, "build", "bin", "scalestudy")
        if os.access(checkout_build, os.X_OK):
            self.assertEqual(os.path.realpath(found), os.path.realpath(checkout_build))
        else:
            self.assertIn(checkout_build, found)  # the error says where it looked

    def test_explicit_settings_come_first(self):
        self.assertEqual(cli.find_cli("/opt/x/scalestudy"), "/opt/x/scalestudy")
        with mock.patch.dict(os.environ, {"SCALESTUDY_CLI": "/opt/y/scalestudy"}):
            self.assertEqual(cli.find_cli(), "/opt/y/scalestudy")


if __name__ == "__main__":
    unittest.main()
