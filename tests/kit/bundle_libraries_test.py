"""Unit tests of benchmarks/gpu/bundle_libraries.py, which decides where the GPU kit's
bundled binaries load their libraries from, against stand-ins for ldd and readelf (first on
PATH) that print what the real ones print: every place a library can resolve to, a missing
one, a missing symbol version, and a wrong RPATH. Standard library only."""
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

BUNDLE_LIBRARIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "benchmarks", "gpu", "bundle_libraries.py")

# Prints $FAKE_TOOLS/<tool>.<file name> for `<tool> ... FILE`, as ldd and readelf print.
STAND_IN = textwrap.dedent("""\
    #!/bin/sh
    for last; do :; done
    cat "$FAKE_TOOLS/$(basename "$0").$(basename "$last")"
    """)


class BundleLibrariesTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.tools = os.path.join(self.root, "tools")
        self.bundle = os.path.join(self.root, "bundle")
        self.wheel = os.path.join(self.root, "site-packages", "torch", "lib")
        for folder in (self.tools, self.bundle, self.wheel):
            os.makedirs(folder)
        for tool in ("ldd", "readelf"):
            path = os.path.join(self.tools, tool)
            with open(path, "w") as file:
                file.write(STAND_IN)
            os.chmod(path, stat.S_IRWXU)

    def binary(self, name, ldd_lines, runpath="$ORIGIN"):
        with open(os.path.join(self.bundle, name), "wb") as file:
            file.write(b"\x7fELF")
        with open(os.path.join(self.tools, "ldd." + name), "w") as file:
            file.write("".join(f"\t{line}\n" for line in ldd_lines))
        with open(os.path.join(self.tools, "readelf." + name), "w") as file:
            file.write(f" 0x1d (RUNPATH)            Library runpath: [{runpath}]\n")

    def run_tool(self, *arguments):
        environment = dict(os.environ, FAKE_TOOLS=self.tools,
                           PATH=self.tools + os.pathsep + os.environ["PATH"])
        return subprocess.run([sys.executable, BUNDLE_LIBRARIES, *arguments],
                              capture_output=True, text=True, env=environment)

    def healthy_lines(self):
        return ["linux-vdso.so.1 (0x00007ffd)",
                f"libsqlite3.so.0 => {self.bundle}/libsqlite3.so.0 (0x00007f01)",
                f"libtorch.so => {self.wheel}/libtorch.so (0x00007f02)",
                "libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f03)",
                "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f04)",
                "/lib64/ld-linux-x86-64.so.2 (0x00007f05)"]

    def test_a_bundle_resolving_from_the_three_places_passes(self):
        self.binary("scalestudy-train", self.healthy_lines())
        result = self.run_tool("check", "--bundle", self.bundle, "--wheel-folders", self.wheel)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_every_way_to_fail_is_reported(self):
        self.binary("scalestudy-train", self.healthy_lines() + [
            "libnccl.so.2 => not found",
            "libpng16.so.16 => /usr/lib/x86_64-linux-gnu/libpng16.so.16 (0x00007f06)",
            "/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found "
            "(required by scalestudy-train)"])
        self.binary("gpu_cuda_path_test", self.healthy_lines(), runpath="/home/ci/build/lib")
        result = self.run_tool("check", "--bundle", self.bundle, "--wheel-folders", self.wheel)
        self.assertEqual(result.returncode, 1)
        self.assertIn("libnccl.so.2 not found", result.stderr)
        self.assertIn("libpng16.so.16 resolves to /usr/lib/x86_64-linux-gnu/libpng16.so.16",
                      result.stderr)
        self.assertIn("GLIBCXX_3.4.32 not found", result.stderr)
        self.assertIn("RPATH is '/home/ci/build/lib', not '$ORIGIN'", result.stderr)
        self.assertIn("4 problem(s)", result.stderr)

    def test_outside_lists_what_a_bundle_must_copy(self):
        self.binary("scalestudy-train", self.healthy_lines()[:1] + self.healthy_lines()[2:] + [
            "libsqlite3.so.0 => /lib/x86_64-linux-gnu/libsqlite3.so.0 (0x00007f01)",
            "libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f07)"])
        result = self.run_tool("outside", "--wheel-folders", self.wheel, "--",
                               os.path.join(self.bundle, "scalestudy-train"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["/lib/x86_64-linux-gnu/libsqlite3.so.0",
                                                 "/lib/x86_64-linux-gnu/libz.so.1"])


if __name__ == "__main__":
    unittest.main()
