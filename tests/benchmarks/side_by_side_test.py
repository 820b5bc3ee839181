"""Unit tests of benchmarks/gpu/side_by_side.py's device-free logic: the C++ side's epoch
arithmetic (every measured step must lie past warm-up, whatever the batch), the command
both sides agree on, and the interleaved medians. Runs without torch or a GPU."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "benchmarks", "gpu"))
import side_by_side  # noqa: E402


class CppScheduleTest(unittest.TestCase):
    def test_batch_512_runs_past_warm_up(self):
        # 10,000 samples / 512 = 19 full batches per epoch: one epoch held only warm-up.
        epochs, per_epoch = side_by_side.cpp_schedule(512, steps=100, warmup=20)
        self.assertEqual(per_epoch, 19)
        self.assertEqual(epochs, 7)
        self.assertGreaterEqual(epochs * per_epoch - 20, 100)

    def test_batch_128_fits_one_epoch(self):
        self.assertEqual(side_by_side.cpp_schedule(128, steps=100, warmup=20), (2, 78))

    def test_small_runs_are_not_padded(self):
        self.assertEqual(side_by_side.cpp_schedule(128, steps=5, warmup=2), (1, 7))

    def test_batch_larger_than_the_split_fails(self):
        with self.assertRaises(ValueError):
            side_by_side.cpp_schedule(20000, steps=10, warmup=2)


class CommandTest(unittest.TestCase):
    def test_cpp_side_runs_the_python_settings(self):
        command = side_by_side.cpp_command("bin", 512, "bf16", 100, 20, True, "/tmp/x")
        flags = dict(zip(command[1::2], command[2::2]))
        self.assertEqual(flags["--cudnn-benchmark"], "true")
        self.assertEqual(flags["--nesterov"], "true")
        self.assertEqual(float(flags["--weight-decay"]), 5e-4)
        self.assertEqual(flags["--augment"], "false")
        self.assertEqual(flags["--epochs"], "7")
        self.assertEqual(flags["--steps-per-epoch"], "19")
        self.assertEqual(flags["--measure-warmup-steps"], "20")
        self.assertEqual(flags["--cuda-graph"], "true")


class InterleavedTest(unittest.TestCase):
    def test_alternates_order_and_takes_medians(self):
        calls = []
        rates = {"a": iter([10, 30, 20]), "b": iter([5, 1, 3])}

        def side(name):
            def run():
                calls.append(name)
                return {"images_per_s": next(rates[name]), "device": name}
            return run

        a, b = side_by_side.interleaved(3, side("a"), side("b"))
        self.assertEqual(calls, ["a", "b", "b", "a", "a", "b"])
        self.assertEqual(a["images_per_s"], 20)
        self.assertEqual(b["images_per_s"], 3)


if __name__ == "__main__":
    unittest.main()
