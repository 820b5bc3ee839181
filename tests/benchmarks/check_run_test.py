"""Unit tests of benchmarks/gpu/check_run.py, the validation kit's smoke-run check, on
run databases made here with just the tables it reads."""
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

CHECK_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                         "benchmarks", "gpu", "check_run.py")


def run_dir(losses, summary):
    directory = tempfile.mkdtemp()
    with sqlite3.connect(os.path.join(directory, "rank0.sqlite")) as db:
        db.execute("CREATE TABLE epochs (epoch INTEGER, train_loss REAL)")
        db.execute("CREATE TABLE summary (name TEXT PRIMARY KEY, value REAL)")
        db.executemany("INSERT INTO epochs VALUES (?, ?)", enumerate(losses, 1))
        db.executemany("INSERT INTO summary VALUES (?, ?)", summary.items())
    return directory


def check(directory, *flags):
    return subprocess.run([sys.executable, CHECK_RUN, directory, "--label", "fp16", *flags],
                          capture_output=True, text=True)


class CheckRunTest(unittest.TestCase):
    def test_a_learning_fp16_run_passes_with_its_row(self):
        result = check(run_dir([2.3, 1.1], {"final_val_acc": 0.6, "samples_per_s": 9000,
                                            "loss_scale_skipped_steps": 2}),
                       "--require-key", "loss_scale_skipped_steps")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "| fp16 | 2.300 → 1.100 | 0.600 | 9000 | 2 |")

    def test_a_rising_loss_fails(self):
        result = check(run_dir([2.3, 2.4], {"final_val_acc": 0.6, "samples_per_s": 1}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("training loss did not fall", result.stderr)

    def test_chance_accuracy_fails(self):
        result = check(run_dir([2.3, 2.0], {"final_val_acc": 0.15, "samples_per_s": 1}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("not above chance", result.stderr)

    def test_a_missing_key_fails(self):
        result = check(run_dir([2.3, 2.0], {"final_val_acc": 0.6, "samples_per_s": 1}),
                       "--require-key", "loss_scale_skipped_steps")
        self.assertEqual(result.returncode, 1)
        self.assertIn("summary lacks loss_scale_skipped_steps", result.stderr)


if __name__ == "__main__":
    unittest.main()
