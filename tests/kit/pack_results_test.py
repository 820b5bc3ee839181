"""Unit tests of benchmarks/gpu/pack_results.py: whatever the GPU kit wrote — here 40 logs
and run databases up to three folders deep, five reports, a failed and a skipped step —
comes back as at most 8 files, none below one folder, with every log in the tarball, the
failed step's log tail and each returned file's size in validation.md; and the rule's check
catches a folder that breaks it. Standard library only."""
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks", "gpu"))
import pack_results  # noqa: E402

PACK = os.path.join(HERE, "..", "..", "benchmarks", "gpu", "pack_results.py")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        file.write(text)


def kit_work_folder():
    work = os.path.join(tempfile.mkdtemp(), "work")
    steps = [("preflight", "30", "2", "ok", "python3 preflight.py"),
             ("smoke-fp32", "40", "31", "FAILED (exit 1)",
              "bundle/scalestudy-train --precision fp32"),
             ("smoke-fp16", "40", "0", "skipped: fp16 runs on CUDA only", "")]
    write(os.path.join(work, "steps.tsv"), "".join("\t".join(s) + "\n" for s in steps))
    write(os.path.join(work, "logs", "2-smoke-fp32.log"),
          "".join(f"line {n}\n" for n in range(100)) + "fp32: training loss did not fall\n")
    for report in pack_results.REPORTS:
        write(os.path.join(work, report), f"| {report} |\n")
    for run in range(13):
        for name in ("rank0.sqlite", "checkpoint/state.pt", "checkpoint/deep/more.bin"):
            write(os.path.join(work, "runs", f"run{run}", name), "x" * 100)
    return work


class PackResultsTest(unittest.TestCase):
    def test_everything_comes_back_in_at_most_8_files_one_folder_down(self):
        work = kit_work_folder()
        out = os.path.join(os.path.dirname(work), "out")
        write(os.path.join(out, "validation.md"), "an earlier run's\n")
        result = subprocess.run([sys.executable, PACK, "--work", work, "--out", out],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(pack_results.rule_breaks(out), [])
        returned = sorted(os.listdir(out))
        self.assertLessEqual(len(returned), pack_results.MAX_FILES)
        self.assertEqual(returned, sorted(pack_results.REPORTS + [pack_results.SUMMARY,
                                                                  pack_results.TARBALL]))
        with tarfile.open(os.path.join(out, pack_results.TARBALL)) as tarball:
            names = tarball.getnames()
        self.assertIn("work/logs/2-smoke-fp32.log", names)
        self.assertIn("work/runs/run12/checkpoint/deep/more.bin", names)
        self.assertEqual(sum(name.endswith("rank0.sqlite") for name in names), 13)
        with open(os.path.join(out, pack_results.SUMMARY)) as file:
            summary = file.read()
        self.assertIn("| 2 | smoke-fp32 | 40 | 31 | FAILED (exit 1) |", summary)
        self.assertIn("| 3 | smoke-fp16 | 40 | 0 | skipped: fp16 runs on CUDA only |", summary)
        self.assertIn("## Failed: smoke-fp32", summary)
        self.assertIn("fp32: training loss did not fall", summary)
        self.assertNotIn("line 50\n", summary)  # a tail, not the whole log
        self.assertNotIn("## Failed: smoke-fp16", summary)
        self.assertNotIn("an earlier run's", summary)
        tarball_bytes = os.path.getsize(os.path.join(out, pack_results.TARBALL))
        self.assertIn(f"| {pack_results.TARBALL} | {tarball_bytes} |", summary)

    def test_a_folder_breaking_the_rule_is_caught(self):
        out = tempfile.mkdtemp()
        for number in range(9):
            write(os.path.join(out, f"file{number}.md"), "x")
        write(os.path.join(out, "one", "two", "deep.md"), "x")
        breaks = pack_results.rule_breaks(out)
        self.assertTrue(any("10 files" in reason for reason in breaks), breaks)
        self.assertTrue(any("2 folders down" in reason for reason in breaks), breaks)
        shallow = tempfile.mkdtemp()
        write(os.path.join(shallow, "one", "fine.md"), "x")
        self.assertEqual(pack_results.rule_breaks(shallow), [])

    def test_an_output_folder_inside_the_work_folder_is_refused(self):
        work = kit_work_folder()
        result = subprocess.run([sys.executable, PACK, "--work", work,
                                 "--out", os.path.join(work, "out")],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("must not lie inside the work folder", result.stderr)


if __name__ == "__main__":
    unittest.main()
