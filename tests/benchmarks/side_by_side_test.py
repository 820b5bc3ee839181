"""Unit tests of benchmarks/gpu/side_by_side.py's device-free logic: the C++ side's epoch
arithmetic (every measured step must lie past warm-up, whatever the batch), the command
both sides agree on, the loss cross-check's commands and verdict, and the interleaved
medians. Runs without torch or a GPU."""
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


class CrossCheckTest(unittest.TestCase):
    def test_both_sides_start_from_the_dumped_weights_with_equal_settings(self):
        cpp, python = side_by_side.cross_check_commands("bin", "/tmp/x")
        cpp_flags = dict(zip(cpp[1::2], cpp[2::2]))
        python_flags = dict(zip(python[2::2], python[3::2]))
        self.assertEqual(cpp_flags["--dump-initial-state"], python_flags["--initial-state"])
        self.assertEqual(cpp_flags["--seed"], python_flags["--seed"])
        self.assertEqual(cpp_flags["--batch-size"], python_flags["--batch-size"])
        self.assertEqual(cpp_flags["--steps-per-epoch"], python_flags["--steps"])
        self.assertEqual(cpp_flags["--measure-warmup-steps"], python_flags["--warmup-steps"])
        self.assertEqual(python_flags["--device"], "cuda")
        # The settings the Python twin hard-codes (fp32 without autotuning, momentum 0.9) and
        # the one learning rate both sides are given.
        self.assertEqual(cpp_flags["--precision"], "fp32")
        self.assertEqual(cpp_flags["--cudnn-benchmark"], "false")
        self.assertEqual(cpp_flags["--momentum"], "0.9")
        self.assertEqual(cpp_flags["--lr"], python_flags["--lr"])
        self.assertEqual(float(python_flags["--lr"]), side_by_side.CROSS_CHECK_LR)

    def test_losses_agree_within_a_relative_tolerance(self):
        steps = side_by_side.CROSS_CHECK_STEPS
        python = [2.0 + 0.1 * i for i in range(steps)]
        close = [value * (1 + 5e-4) for value in python]
        self.assertTrue(side_by_side.losses_agree(close, python, 1e-3)[0])
        far = close[:-1] + [python[-1] * 1.01]
        ok, worst = side_by_side.losses_agree(far, python, 1e-3)
        self.assertFalse(ok)
        self.assertAlmostEqual(worst, 0.01, places=6)

    def test_missing_steps_fail(self):
        python = [1.0] * side_by_side.CROSS_CHECK_STEPS
        self.assertFalse(side_by_side.losses_agree(python[:-1], python, 1e-3)[0])


def recorded_sides(calls, rate):
    """Sides "a" and "b" giving `rate` from fixed sequences, and "c" failing; each call of a
    side is appended to `calls`."""
    rates = {"a": iter([10, 30, 20]), "b": iter([5, 1, 3])}

    def side(name):
        def run():
            calls.append(name)
            if name == "c":
                raise side_by_side.RunFailed("C++ scalestudy-lm failed (1): capture\nmore")
            return {rate: next(rates[name]), "device": name}
        return run
    return side


class InterleavedTest(unittest.TestCase):
    def test_alternates_order_and_takes_medians(self):
        calls = []
        side = recorded_sides(calls, "images_per_s")
        a, b = side_by_side.interleaved(3, side("a"), side("b"))
        self.assertEqual(calls, ["a", "b", "b", "a", "a", "b"])
        self.assertEqual(a["images_per_s"], 20)
        self.assertEqual(b["images_per_s"], 3)

    def test_three_sides_rotate_and_a_failed_side_keeps_its_failure(self):
        calls = []
        side = recorded_sides(calls, "tokens_per_s")
        a, b, c = side_by_side.interleaved(3, side("a"), side("b"),
                                           side_by_side.failed_as_result(side("c")),
                                           rate="tokens_per_s")
        self.assertEqual(calls, ["a", "b", "c", "b", "c", "a", "c", "a", "b"])
        self.assertEqual((a["tokens_per_s"], b["tokens_per_s"]), (20, 3))
        self.assertEqual(c, {"failed": "C++ scalestudy-lm failed (1): capture"})

    def test_a_command_that_fails_becomes_a_failed_cell(self):
        command = [sys.executable, "-c", "import sys; sys.exit(3)"]
        runner = side_by_side.failed_as_result(lambda: side_by_side.run(command, "probe"))
        self.assertEqual(runner(), {"failed": "probe failed (exit 3): " + " ".join(command)})


class LmCellsTest(unittest.TestCase):
    def test_the_fast_path_against_eager_and_each_compiled_mode(self):
        python, cpp, fast = ({"tokens_per_s": r} for r in (400000, 420000, 500000))
        compiled = [{"tokens_per_s": 470000}]
        cells = side_by_side.lm_cells(python, cpp, fast, compiled, 1e9, 989)
        self.assertEqual(len(cells) + 2, len(side_by_side.lm_columns(["default"])))
        self.assertEqual(cells, ["400000", "420000", "1.05", "500000", "1.25", "470000", "1.06",
                                 "42.5%", "50.6%", "40.4%"])

    def test_a_failed_fast_path_leaves_its_cells_empty(self):
        python, cpp = {"tokens_per_s": 400000}, {"tokens_per_s": 420000}
        cells = side_by_side.lm_cells(python, cpp, {"failed": "x"}, [{"tokens_per_s": 1}], 1e6,
                                      None)
        self.assertEqual(cells, ["400000", "420000", "1.05", "failed", "-", "1", "-", "n/a", "-",
                                 "n/a"])

    def test_a_failed_compiled_twin_leaves_its_cells_empty(self):
        python, cpp, fast = ({"tokens_per_s": r} for r in (400000, 420000, 500000))
        cells = side_by_side.lm_cells(python, cpp, fast, [{"failed": "no C compiler"}], 1e6,
                                      None)
        self.assertEqual(cells, ["400000", "420000", "1.05", "500000", "1.25", "failed", "-",
                                 "n/a", "n/a", "n/a"])


if __name__ == "__main__":
    unittest.main()
