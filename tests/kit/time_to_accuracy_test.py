"""Tests of benchmarks/gpu/time_to_accuracy.py, the GPU kit's time-to-accuracy table: the
per-epoch clocks, power, joules per image and throttle reasons beside the throughput, and
the line that says whether a throughput decay was the device. Run databases are written
here with the run schema's columns the script reads (docs/run-database.md).

With --real-run the one case runs a real CPU training run of scalestudy-train ($SCALESTUDY_TRAIN)
with the stand-in NVML of tests/gpu/fake_nvml.c ($SCALESTUDY_FAKE_NVML) as its NVML, so the
columns are read from what the harness writes; both variables are then required."""
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks",
                      "gpu", "time_to_accuracy.py")
STEPS_PER_EPOCH = 4


def write_run(folder, rates, energy=None, backward_ms=None, reached=True):
    """A rank0.sqlite with one epoch per entry of `rates` (img/s), its steps (backward_ms[e]
    for epoch e, else 5 ms) and, unless None, the `energy` rows {epoch: (clock min, clock max,
    average W, events, unavailable)}."""
    with sqlite3.connect(os.path.join(folder, "rank0.sqlite")) as db:
        db.execute("CREATE TABLE epochs (epoch INTEGER, lr REAL, train_loss REAL, val_loss REAL, "
                   "val_acc REAL, samples_per_s REAL, epoch_s REAL)")
        db.execute("CREATE TABLE summary (name TEXT, value REAL)")
        db.execute("CREATE TABLE steps (epoch INTEGER, step_ms REAL, data_ms REAL, "
                   "forward_ms REAL, backward_ms REAL, comm_exposed_ms REAL, optimizer_ms REAL)")
        for epoch, rate in enumerate(rates, start=1):
            backward = (backward_ms or {}).get(epoch, 5.0)
            step = 1 + 3 + backward + 1
            db.execute("INSERT INTO epochs VALUES (?, 0.1, 0.5, 0.4, 0.9, ?, ?)",
                       (epoch, rate, STEPS_PER_EPOCH * step / 1000 + 0.25))
            for _ in range(STEPS_PER_EPOCH):
                db.execute("INSERT INTO steps VALUES (?, ?, 1, 3, ?, 0, 1)", (epoch, step, backward))
        db.execute("INSERT INTO summary VALUES ('target_val_accuracy', 0.9)")
        if reached:
            db.executemany("INSERT INTO summary VALUES (?, ?)",
                           [("time_to_target_s", 12.5), ("time_to_target_epoch", 2),
                            ("final_val_acc", 0.91)])
        if energy is None:
            return
        db.execute("CREATE TABLE energy (epoch INTEGER PRIMARY KEY, samples INTEGER NOT NULL, "
                   "measured_s REAL NOT NULL, energy_j REAL, avg_power_w REAL, "
                   "peak_power_w REAL, sm_clock_max_mhz REAL, sm_clock_min_mhz REAL, "
                   "clock_events TEXT NOT NULL, unavailable TEXT NOT NULL)")
        for epoch, (low, high, watts, events, unavailable) in energy.items():
            joules = None if watts is None else watts * 2.0
            db.execute("INSERT INTO energy VALUES (?, 1000, 2.0, ?, ?, ?, ?, ?, ?, ?)",
                       (epoch, joules, watts, watts, high, low, events, unavailable))


def table(folder):
    finished = subprocess.run([sys.executable, SCRIPT, folder, "--label", "test run"],
                              capture_output=True, text=True)
    return finished.returncode, finished.stdout + finished.stderr


def epoch_row(output, epoch):
    return next(line for line in output.splitlines() if line.startswith(f"| {epoch} |"))


class DecayVerdicts(unittest.TestCase):
    def test_a_decay_with_the_clock_down_is_the_device(self):
        folder = tempfile.mkdtemp()
        write_run(folder, [29800, 29500, 23200],
                  {1: (1965, 1980, 600.0, "", ""),
                   2: (1950, 1980, 610.0, "gpu idle", ""),
                   3: (1410, 1500, 700.0, "sw power cap, hw thermal slowdown, gpu idle", "")})
        status, output = table(folder)
        self.assertEqual(status, 0, output)
        self.assertIn("throughput fell 22% from epoch 1 (29800 img/s) to epoch 3 (23200 img/s): "
                      "the device: SM clock 1965–1980 MHz in epoch 1, 1410–1500 in epoch 3, "
                      "average power 600 → 700 W (sw power cap, hw thermal slowdown)", output)
        self.assertNotIn("not the device", output)
        cells = [cell.strip() for cell in epoch_row(output, 3).split("|")]
        self.assertEqual(cells[-5:-1], ["1410–1500", "700", "1.4", "sw power cap, hw thermal "
                                        "slowdown, gpu idle"])

    def test_a_decay_with_the_clock_held_names_the_phase_that_grew(self):
        folder = tempfile.mkdtemp()
        write_run(folder, [1000, 990, 800], {e: (1965, 1980, 600.0, "gpu idle", "")
                                             for e in (1, 2, 3)},
                  backward_ms={3: 7.0})
        status, output = table(folder)
        self.assertEqual(status, 0, output)
        self.assertIn("throughput fell 20% from epoch 1 (1000 img/s) to epoch 3 (800 img/s): not "
                      "the device's clocks (SM clock 1965–1980 MHz in epoch 1, 1965–1980 in "
                      "epoch 3); grew most a step: backward (5.00 → 7.00 ms; the whole step's "
                      "median 10.00 → 12.00 ms)", output)

    def test_without_nvml_the_device_cannot_be_judged_and_the_columns_say_why(self):
        folder = tempfile.mkdtemp()
        no_gpu = "no GPU: the run is on the CPU"
        write_run(folder, [500, 400], {1: (None, None, None, "", no_gpu),
                                       2: (None, None, None, "", no_gpu)})
        status, output = table(folder)
        self.assertEqual(status, 0, output)
        self.assertIn(f"energy and clocks empty: {no_gpu}", output)
        self.assertIn(f"throughput fell 20% from epoch 1 (500 img/s) to epoch 2 (400 img/s): the "
                      f"clocks were not read ({no_gpu}), so the device cannot be judged", output)
        self.assertEqual([cell.strip() for cell in epoch_row(output, 2).split("|")][-5:-1],
                         ["-"] * 4)

    def test_a_database_before_the_energy_table_still_gives_its_table(self):
        folder = tempfile.mkdtemp()
        write_run(folder, [500, 400], energy=None)
        status, output = table(folder)
        self.assertEqual(status, 0, output)
        self.assertIn("the clocks were not read (no energy rows)", output)

    def test_a_throughput_within_five_percent_is_held(self):
        folder = tempfile.mkdtemp()
        write_run(folder, [1000, 1010, 970], {e: (1980, 1980, 600.0, "", "") for e in (1, 2, 3)})
        status, output = table(folder)
        self.assertEqual(status, 0, output)
        self.assertIn("throughput held: no epoch after the fastest (2, 1010 img/s) fell 5% below "
                      "it (the slowest: 4.0% below)", output)

    def test_a_target_never_reached_exits_1_after_the_table(self):
        folder = tempfile.mkdtemp()
        write_run(folder, [1000, 1000], energy=None, reached=False)
        status, output = table(folder)
        self.assertEqual(status, 1, output)
        self.assertIn("| 2 |", output)
        self.assertIn("target val accuracy 0.9: not reached in 2 epochs", output)


class RealRun(unittest.TestCase):
    def test_a_cpu_run_with_the_stand_in_nvml_shows_its_clocks_per_epoch(self):
        train, nvml = os.environ["SCALESTUDY_TRAIN"], os.environ["SCALESTUDY_FAKE_NVML"]
        folder = tempfile.mkdtemp()
        run = subprocess.run(
            [train, "--device", "cpu", "--dataset", "synthetic", "--model", "small-cnn",
             "--epochs", "3", "--steps-per-epoch", "6", "--measure-warmup-steps", "1",
             "--batch-size", "16", "--val-samples", "32", "--log-interval", "0",
             "--nvml-library", nvml, "--target-val-accuracy", "0.01", "--out-dir", folder],
            capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        status, output = table(folder)
        self.assertEqual(status, 0, output)
        # tests/gpu/fake_nvml.c: 1980 MHz until the first measured window's end, then 1410
        # with hw thermal slowdown; the counter gains 90 J a window, over the 6 steps of 16
        # images of a later epoch (the warm-up step is the first epoch's only).
        self.assertIn("1410–1980", epoch_row(output, 1))
        for epoch in (2, 3):
            cells = [cell.strip() for cell in epoch_row(output, epoch).split("|")]
            self.assertEqual(cells[-5], "1410–1410")
            self.assertEqual(cells[-2], "hw thermal slowdown")
            self.assertAlmostEqual(float(cells[-3]), 90.0 / (6 * 16), places=2)
        self.assertRegex(output, r"\nthroughput( fell| held|: the last)")


if __name__ == "__main__":
    real = "--real-run" in sys.argv
    unittest.main(argv=[sys.argv[0], "RealRun" if real else "DecayVerdicts"])
