"""Unit tests of benchmarks/gpu/preflight.py, the GPU kit's first step: a fake bundle
manifest against fake machine facts (each way a bundle cannot run must stop it, with its
reason; what does not matter must not), and one real probe of this machine (no GPU needed).
Standard library only; the probe runs whatever python3 this is, with or without torch."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PREFLIGHT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                         "benchmarks", "gpu", "preflight.py")
MANIFEST = {
    "torch_version": "2.11.0+cu130", "torch_git_version": "70d99e998b49",
    "torch_cuda_version": "13.0", "python_version": "3.12", "nccl_version": "2.28.9",
    "cudnn_version": "9.19.0.56", "cuda_toolkit_version": "13.0.88", "build_type": "Release",
    "git_commit": "abc", "git_dirty": False, "glibc_required": "2.34",
    "glibcxx_required": "3.4.30", "binaries": {"scalestudy-train": 1},
    "libraries": {"libz.so.1": 1}, "total_bytes": 2, "created_utc": "2026-11-26T00:00:00Z",
}
MATCHING_FACTS = {
    "os": "Ubuntu 24.04 LTS", "kernel": "6.8", "glibc": "2.39", "python": "3.12.3",
    "nvcc": "13.0.88", "driver": "580.65", "gpu": "NVIDIA H100 80GB HBM3", "device_count": 1,
    "torch_version": "2.11.0+cu130", "torch_git_version": "70d99e998b49",
    "torch_cuda_version": "13.0", "cuda_available": True, "nccl_version": "2.28.9",
    "cudnn_version": "9.19.0", "library_problems": [],
}


def preflight(facts, *flags, manifest=MANIFEST):
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "bundle.json"), "w") as file:
        json.dump(manifest, file)
    with open(os.path.join(folder, "facts.json"), "w") as file:
        json.dump(facts, file)
    out = os.path.join(folder, "preflight.md")
    result = subprocess.run([sys.executable, PREFLIGHT, "--bundle", folder, "--out", out,
                             "--facts", os.path.join(folder, "facts.json"), *flags],
                            capture_output=True, text=True)
    with open(out) as file:
        return result, file.read()


class PreflightTest(unittest.TestCase):
    def assert_stops(self, changes, reason, *flags):
        result, table = preflight(dict(MATCHING_FACTS, **changes), *flags)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(reason, table)
        self.assertIn("preflight: STOP", table)
        self.assertIn("MISMATCH", table)

    def test_a_matching_machine_passes_with_its_table(self):
        result, table = preflight(MATCHING_FACTS)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("| torch | 2.11.0+cu130 | 2.11.0+cu130 | ok |", table)
        self.assertIn("| GPU | NVIDIA H100 80GB HBM3 (1 visible) |", table)
        self.assertIn("| driver | 580.65 |", table)
        self.assertTrue(table.rstrip().endswith("preflight: ok"))
        self.assertNotIn("MISMATCH", table)

    def test_another_torch_version_stops(self):
        self.assert_stops({"torch_version": "2.10.0+cu130"}, "has torch 2.10.0+cu130")

    def test_another_torch_build_stops(self):
        self.assert_stops({"torch_git_version": "0123456789ab"}, "git hash differs")

    def test_another_cuda_major_version_stops(self):
        self.assert_stops({"torch_cuda_version": "12.8"}, "CUDA 12.8 is not the bundle's")

    def test_a_cpu_only_torch_stops(self):
        self.assert_stops({"torch_cuda_version": ""}, "a CPU-only torch")

    def test_another_nccl_minor_version_stops(self):
        self.assert_stops({"nccl_version": "2.27.3"}, "NCCL 2.27.3 is not the bundle's")

    def test_an_older_glibc_stops(self):
        self.assert_stops({"glibc": "2.28"}, "older than the 2.34")

    def test_an_unresolved_library_stops(self):
        self.assert_stops({"library_problems": ["bundle/scalestudy-train: libfoo.so.1 not found"]},
                          "libfoo.so.1 not found")

    def test_no_gpu_stops_unless_rehearsing(self):
        self.assert_stops({"gpu": "", "cuda_available": False, "device_count": 0},
                          "no GPU visible")
        result, table = preflight(dict(MATCHING_FACTS, gpu="", cuda_available=False),
                                  "--allow-no-gpu")
        self.assertEqual(result.returncode, 0, table)
        self.assertIn("none (CPU rehearsal)", table)

    def test_what_does_not_matter_is_noted_only(self):
        # Another CPython, NCCL patch level, cuDNN or nvcc: the same LibTorch build.
        result, table = preflight(dict(MATCHING_FACTS, python="3.11.2", nccl_version="2.28.3",
                                       cudnn_version="9.10.0", nvcc="12.9.41"))
        self.assertEqual(result.returncode, 0, table)
        self.assertIn("Note: python3 is 3.11.2", table)

    def test_a_machine_without_a_c_compiler_is_noted_not_stopped(self):
        result, table = preflight(dict(MATCHING_FACTS, c_compiler="", python_h=True))
        self.assertEqual(result.returncode, 0, table)
        self.assertIn("| torch.compile toolchain | no C compiler; Python.h found |  | the "
                      "compiled twins will fail", table)

    def test_this_machine_is_probed_without_a_bundle(self):
        out = os.path.join(tempfile.mkdtemp(), "preflight.md")
        result = subprocess.run([sys.executable, PREFLIGHT, "--out", out, "--allow-no-gpu"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(out) as file:
            table = file.read()
        for row in ("| OS |", "| glibc |", "| python3 |", "| torch.compile toolchain |",
                    "| torch |", "| NCCL |"):
            self.assertIn(row, table)


if __name__ == "__main__":
    unittest.main()
