#!/usr/bin/env python3
"""Runs scalestudy's C++ training step and the PyTorch-Python reference side by side on one
GPU and prints images/s for each, their ratio and the model FLOP utilisation (MFU).

Grid: per-GPU batch 128 and 512 x fp32 / bf16 / fp16, ResNet-18 CIFAR shape, channels_last,
synthetic CIFAR-shaped data resident on the GPU. Both sides run the same settings: SGD lr
0.1, momentum 0.9, Nesterov, weight decay 5e-4 in one fused kernel (C++: --optimizer-impl
foreach, which is `_fused_sgd_` on LibTorch >= 2.4; Python: fused=True where its torch has
it, else foreach, named in the note; --python-optimizer foreach for the multi-tensor form),
cuDNN benchmark on, no augmentation, the same seed, the same warm-up and measured step
counts. The C++ side's
synthetic training split has 10,000 samples, so a run spans as many epochs as its steps
need (cpp_schedule); it reports wall-clock images/s over its measured steps. Each cell is
the median of --repeats runs, the two sides interleaved (A B A B ...), so drift of clocks
or temperature hits both alike. --cuda-graph pairs the C++ --cuda-graph with a Python
torch.cuda.graph variant (bf16/fp32 only). --device cpu runs both sides on the CPU (the
GPU kit's CPU rehearsal: fp32/bf16, no graphs, no MFU).

Before timing, a numerical cross-check: the C++ side trains CROSS_CHECK_STEPS steps of
ResNet-18 (batch --cross-check-batch) in fp32 (no TF32, cuDNN autotuning off, SGD lr
CROSS_CHECK_LR momentum 0.9) and dumps its initial weights (--dump-initial-state);
benchmarks/cpu/reference_train.py --device DEVICE trains the same steps from those weights on the same resident data and permutation, and
every loss must agree within --loss-tolerance (relative). A miss stops the script.

MFU = images/s x 3 x forward FLOPs / peak, with training FLOPs ~ 3 x forward (backward ~
2 x forward) and 2 FLOPs per multiply-accumulate; the peak comes from the table below by
device name (dense tensor-core figures for bf16/fp16 and tf32, CUDA-core figures for fp32).

--lm-batches B,...: a second table, the language model: scalestudy-lm (beside --binary, or
--lm-binary) against lm_reference_train.py, nanoGPT's model and step in PyTorch, eager and
under each --compile mode, per batch at --lm-preset (GPT-2 small: context 1024, vocabulary
50,304), AdamW, synthetic tokens on the device, the same warm-up and measured steps, all
interleaved; scalestudy-lm twice: its plain path and its fast path (--lm-fast-flags; a
failure there shows as "failed" and is named in the note, the rest of the table stands);
tokens/s, the ratios (plain against eager, fast against eager and each compiled mode) and
MFU by the 6 N + 12 L d T rule. --batches "" leaves the
ResNet grid and its cross-check out.

Usage (on the GPU machine, from the repository root, after building with
-DSCALESTUDY_CUDA=ON as docs/gpu.md shows):
  python3 benchmarks/gpu/side_by_side.py --binary build-cuda/bin/scalestudy-train \\
      [--compile default,max-autotune] [--batches 128,512] [--precisions fp32,bf16,fp16] \\
      [--repeats 3] [--cuda-graph] [--markdown table.md] [--device cuda|cpu] \\
      [--lm-batches 16 [--lm-preset small] [--lm-precision bf16]]
"""
import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CPU_REFERENCE = os.path.join(HERE, "..", "cpu", "reference_train.py")
CROSS_CHECK_STEPS = 10
CROSS_CHECK_BATCH = 32
# Small enough that the loss falls: at lr 0.1 on the synthetic labels it rose tenfold in six
# steps on an H100 (2026-11-26), and that chaos turned the last-bit differences of cuDNN's
# non-deterministic backward kernels (equal to 1e-5 at step 3) into a 48% gap by step 8.
CROSS_CHECK_LR = 0.01
# The cross-check's relative tolerance per device. On an H100 cuDNN's fp32 backward kernels
# are not bitwise reproducible: three C++ runs of the same 10 steps differed pairwise by
# 1.7e-3 to 2.5e-3, and C++ against Python by 1.3e-3 to 3.0e-3 (seven pairs, 2026-11-26),
# so 1e-2 there; a wrong setting (momentum, weight decay, Nesterov) moves the losses by far
# more. The CPU is deterministic: 1e-3.
LOSS_TOLERANCE = {"cpu": 1e-3, "cuda": 1e-2}
SYNTHETIC_TRAIN_SAMPLES = 10000  # harness/data/synthetic_dataset.hpp: train_size
SEED = 0
# The fastest LM step scalestudy-lm can take (docs/lm.md): the fused chunked head and
# cross-entropy, GELU in the GEMM epilogue, the fused AdamW and, on a GPU, the whole step as
# one CUDA graph.
LM_FAST_FLAGS = {
    "cuda": "--fused-head true --gelu-epilogue true --optimizer-impl foreach --cuda-graph true",
    "cpu": "--fused-head true --gelu-epilogue true",
}
# Validation lies outside the measured steps: a timed run validates a token few samples.
TIMED_RUN_VAL_SAMPLES = 100
OPTIMIZER = {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 5e-4}

# Peak TFLOP/s per device: (bf16/fp16 dense tensor core, tf32 dense tensor core, fp32).
PEAK_TFLOPS = [
    ("H100 PCIe", (756.0, 378.0, 51.2)),
    ("H100", (989.4, 494.7, 66.9)),  # SXM
    ("H200", (989.4, 494.7, 66.9)),
    ("A100", (312.0, 156.0, 19.5)),
    ("L40S", (362.1, 183.0, 91.6)),
    ("T4", (65.0, 0.0, 8.1)),  # fp16 tensor cores; no bf16/tf32 tensor cores
]


def peak_tflops(device_name, precision):
    for key, (half, tf32, fp32) in PEAK_TFLOPS:
        if key in device_name:
            return {"fp16": half, "bf16": half, "tf32": tf32, "fp32": fp32}[precision] or None
    return None


def cpp_schedule(batch, steps, warmup, train_samples=SYNTHETIC_TRAIN_SAMPLES):
    """(epochs, steps per epoch) for the C++ side to run warmup + steps full batches from a
    split of train_samples: the last epoch may run fewer steps than the others (the loop
    counts --measure-warmup-steps over the whole run, not per epoch)."""
    per_epoch = train_samples // batch
    if per_epoch == 0:
        raise ValueError(f"batch {batch} exceeds the {train_samples}-sample training split")
    total = steps + warmup
    epochs = math.ceil(total / per_epoch)
    return epochs, min(per_epoch, total)


class RunFailed(RuntimeError):
    """A command that exited non-zero: failed_as_result makes it a cell, main() an exit."""


def run(command, what):
    """Runs command; its stderr goes to ours; a failure raises RunFailed after both outputs."""
    result = subprocess.run(command, capture_output=True, text=True)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        raise RunFailed(f"{what} failed (exit {result.returncode}): {' '.join(command)}")
    return result.stdout


def run_python(batch, precision, compile_mode, steps, warmup, cuda_graph, device="cuda",
               optimizer="auto"):
    command = [sys.executable, os.path.join(HERE, "reference_train.py"), "--device", device,
               "--optimizer", optimizer,
               "--batch-size", str(batch), "--precision", precision, "--channels-last", "true",
               "--compile", compile_mode, "--steps", str(steps), "--warmup-steps", str(warmup),
               "--seed", str(SEED), "--samples", str(SYNTHETIC_TRAIN_SAMPLES)]
    if cuda_graph:
        command.append("--cuda-graph")
    return json.loads(run(command, "python reference").strip().splitlines()[-1])


def cpp_command(binary, batch, precision, steps, warmup, cuda_graph, out_dir, device="cuda"):
    epochs, per_epoch = cpp_schedule(batch, steps, warmup)
    command = [binary, "--dataset", "synthetic", "--model", "resnet18", "--augment", "false",
               "--device", device, "--data-on-device", "true", "--channels-last", "true",
               "--cudnn-benchmark", "true", "--optimizer", "sgd", "--optimizer-impl", "foreach",
               "--lr", str(OPTIMIZER["lr"]), "--momentum", str(OPTIMIZER["momentum"]),
               "--nesterov", "true", "--weight-decay", str(OPTIMIZER["weight_decay"]),
               "--seed", str(SEED), "--precision", precision, "--batch-size", str(batch),
               "--epochs", str(epochs), "--steps-per-epoch", str(per_epoch),
               "--measure-warmup-steps", str(warmup), "--out-dir", out_dir,
               "--val-samples", str(TIMED_RUN_VAL_SAMPLES)]
    if cuda_graph:
        command += ["--cuda-graph", "true"]
    return command


def run_cpp(binary, batch, precision, steps, warmup, cuda_graph, extra_flags, device="cuda"):
    with tempfile.TemporaryDirectory() as out_dir:
        command = cpp_command(binary, batch, precision, steps, warmup, cuda_graph, out_dir,
                              device)
        run(command + extra_flags, "C++ scalestudy-train")
        with sqlite3.connect(os.path.join(out_dir, "rank0.sqlite")) as db:
            (rate,) = db.execute(
                "SELECT value FROM summary WHERE name = 'samples_per_s'").fetchone()
    return {"images_per_s": rate}


def cross_check_commands(binary, out_dir, device="cuda", batch=CROSS_CHECK_BATCH):
    """The C++ and Python commands of the cross-check: equal seeds, weights, data, steps."""
    state = os.path.join(out_dir, "initial_state.pt")
    cpp = [binary, "--dataset", "synthetic", "--model", "resnet18", "--augment", "false",
           "--device", device, "--data-on-device", "true", "--channels-last", "false",
           "--cudnn-benchmark", "false", "--precision", "fp32", "--optimizer", "sgd",
           "--lr", str(CROSS_CHECK_LR), "--momentum", "0.9", "--seed", str(SEED),
           "--batch-size", str(batch), "--epochs", "1",
           "--steps-per-epoch", str(CROSS_CHECK_STEPS), "--measure-warmup-steps", "0",
           "--val-samples", "10", "--log-interval", "0", "--dump-initial-state", state,
           "--out-dir", out_dir]
    python = [sys.executable, CPU_REFERENCE, "--model", "resnet18", "--device", device,
              "--batch-size", str(batch), "--warmup-steps", "0",
              "--steps", str(CROSS_CHECK_STEPS), "--seed", str(SEED), "--initial-state", state,
              "--lr", str(CROSS_CHECK_LR)]
    return cpp, python


def losses_agree(cpp_losses, python_losses, tolerance):
    """(ok, worst relative difference) of two loss sequences of CROSS_CHECK_STEPS steps."""
    pairs = list(zip(cpp_losses, python_losses))
    if len(pairs) != CROSS_CHECK_STEPS or len(cpp_losses) != len(python_losses):
        return False, math.inf
    worst = max(abs(c - p) / max(abs(p), 1e-12) for c, p in pairs)
    return worst <= tolerance, worst


def cross_check(binary, tolerance, device, batch):
    with tempfile.TemporaryDirectory() as out_dir:
        cpp_command_line, python_command_line = cross_check_commands(binary, out_dir, device,
                                                                     batch)
        run(cpp_command_line, "C++ cross-check")
        with sqlite3.connect(os.path.join(out_dir, "rank0.sqlite")) as db:
            cpp_losses = [row[0] for row in db.execute("SELECT loss FROM steps ORDER BY global_step")]
        python_losses = json.loads(
            run(python_command_line, "Python cross-check").strip().splitlines()[-1])["losses"]
    ok, worst = losses_agree(cpp_losses, python_losses, tolerance)
    print(f"cross-check resnet18 fp32 batch {batch}: first {CROSS_CHECK_STEPS} losses "
          f"max relative difference {worst:.2e} (tolerance {tolerance:.0e}) "
          f"{'ok' if ok else 'MISMATCH'}", flush=True)
    if not ok:
        raise SystemExit(f"cross-check failed:\n  C++    {cpp_losses}\n  Python {python_losses}")


def interleaved(repeats, *sides, rate="images_per_s"):
    """Median `rate` of each side over repeats runs, the order rotating every repeat (two
    sides alternate which goes first). A side whose runs all failed (results without `rate`,
    as failed_as_result gives) keeps its last result."""
    results = tuple([] for _ in sides)
    for repeat in range(repeats):
        shift = repeat % len(sides)
        for side in list(range(len(sides)))[shift:] + list(range(len(sides)))[:shift]:
            results[side].append(sides[side]())
    combined = []
    for side_results in results:
        rates = [r[rate] for r in side_results if rate in r]
        combined.append({**side_results[-1], rate: statistics.median(rates)} if rates
                        else side_results[-1])
    return tuple(combined)


def failed_as_result(runner):
    """`runner`, whose failure becomes a result {"failed": its first line} instead of ending
    the table (a fast path that has not run on this device yet, a compiler the machine
    lacks)."""
    def run_or_fail():
        try:
            return runner()
        except RuntimeError as error:
            return {"failed": str(error).splitlines()[0]}
    return run_or_fail


def run_python_lm(batch, preset, precision, compile_mode, steps, warmup, device):
    command = [sys.executable, os.path.join(HERE, "lm_reference_train.py"), "--device", device,
               "--preset", preset, "--batch-size", str(batch), "--precision", precision,
               "--compile", compile_mode, "--steps", str(steps), "--warmup-steps", str(warmup),
               "--seed", str(SEED)]
    return json.loads(run(command, "python LM reference").strip().splitlines()[-1])


def lm_command(binary, batch, preset, precision, steps, warmup, out_dir, device):
    """scalestudy-lm's run of warmup + steps steps in one epoch, AdamW, as the twin's."""
    return [binary, "--dataset", "synthetic", "--preset", preset, "--batch-size", str(batch),
            "--precision", precision, "--device", device, "--data-on-device", "true",
            "--optimizer", "adamw", "--lr", "0.001", "--weight-decay", "0.01",
            "--seed", str(SEED), "--epochs", "1", "--steps-per-epoch", str(steps + warmup),
            "--measure-warmup-steps", str(warmup),
            "--train-samples", str(batch * (steps + warmup)), "--val-samples", str(batch),
            "--eval-batch-size", str(batch), "--calibrate", "false", "--out-dir", out_dir]


def run_cpp_lm(binary, batch, preset, precision, steps, warmup, device, extra_flags=()):
    with tempfile.TemporaryDirectory() as out_dir:
        run(lm_command(binary, batch, preset, precision, steps, warmup, out_dir, device)
            + list(extra_flags), "C++ scalestudy-lm")
        with sqlite3.connect(os.path.join(out_dir, "rank0.sqlite")) as db:
            (rate,) = db.execute(
                "SELECT value FROM summary WHERE name = 'tokens_per_s'").fetchone()
    return {"tokens_per_s": rate}


def rate_columns(unit, compile_modes):
    """The columns rate_cells fills, rates in `unit` per second."""
    return ([f"python {unit}/s", f"C++ {unit}/s", "C++/py"]
            + [f"compile-{m} {unit}/s" for m in compile_modes]
            + [f"C++/compile-{m}" for m in compile_modes] + ["MFU C++", "MFU py"])


def rate_cells(key, python, cpp, compiled, flops_per_item, peak):
    """A row's rates (`key` of each run's summary): Python eager, C++ and their ratio; each
    compiled mode and C++ against it; the MFU of C++ and of Python at `peak` TFLOP/s."""
    cells = [f"{python[key]:.0f}", f"{cpp[key]:.0f}", f"{cpp[key] / python[key]:.2f}"]
    cells += [f"{c[key]:.0f}" for c in compiled]
    cells += [f"{cpp[key] / c[key]:.2f}" for c in compiled]
    cells += [f"{100 * rate * flops_per_item / (peak * 1e12):.1f}%" if peak else "n/a"
              for rate in (cpp[key], python[key])]
    return cells


def lm_columns(compile_modes):
    """The columns lm_cells fills."""
    return (["LM batch", "precision", "python tok/s", "C++ tok/s", "C++/py", "C++ fast tok/s",
             "C++ fast/py"]
            + [f"compile-{m} tok/s" for m in compile_modes]
            + [f"C++ fast/compile-{m}" for m in compile_modes]
            + ["MFU C++", "MFU C++ fast", "MFU py"])


def lm_cells(python, cpp, fast, compiled, flops_per_token, peak):
    """An LM row's rates: nanoGPT eager, the C++ plain path and the fast path (or "failed")
    against it, each compiled mode and the fast path against it, and the MFU of each."""
    key = "tokens_per_s"

    def rate(result):
        return f"{result[key]:.0f}" if key in result else "failed"

    def against(numerator, denominator):
        if key not in numerator or key not in denominator:
            return "-"
        return f"{numerator[key] / denominator[key]:.2f}"

    def mfu(result):
        if key not in result:
            return "-"
        return f"{100 * result[key] * flops_per_token / (peak * 1e12):.1f}%" if peak else "n/a"
    cells = [rate(python), rate(cpp), against(cpp, python), rate(fast), against(fast, python)]
    cells += [rate(c) for c in compiled] + [against(fast, c) for c in compiled]
    return cells + [mfu(cpp), mfu(fast), mfu(python)]


def lm_table(args, compile_modes):
    """The LM rows: (columns, rows, note). nanoGPT eager and compiled, the C++ plain path and
    the C++ fast path (--lm-fast-flags) run interleaved."""
    binary = args.lm_binary or os.path.join(os.path.dirname(args.binary), "scalestudy-lm")
    fast_flags = (LM_FAST_FLAGS[args.device] if args.lm_fast_flags is None
                  else args.lm_fast_flags).split()
    rows, failures = [], []
    for batch in (int(b) for b in args.lm_batches.split(",")):
        def python_side(mode):
            return lambda: run_python_lm(batch, args.lm_preset, args.lm_precision, mode,
                                         args.steps, args.warmup_steps, args.device)

        def cpp_side(flags):
            return lambda: run_cpp_lm(binary, batch, args.lm_preset, args.lm_precision,
                                      args.steps, args.warmup_steps, args.device, flags)
        python, cpp, fast, *compiled = interleaved(
            args.repeats, python_side("none"), cpp_side(()),
            failed_as_result(cpp_side(fast_flags)),
            *(failed_as_result(python_side(mode)) for mode in compile_modes),
            rate="tokens_per_s")
        for name, result in [("C++ fast", fast)] + [(f"compile-{mode}", result)
                                                    for mode, result in zip(compile_modes,
                                                                            compiled)]:
            if "failed" in result:
                failures.append(f"batch {batch}, {name}: {result['failed']}")
        row = [str(batch), args.lm_precision]
        row += lm_cells(python, cpp, fast, compiled, python["flops_per_token"],
                        peak_tflops(python["device"], args.lm_precision))
        rows.append(row)
        print(" | ".join(row), flush=True)
    note = (f"LM: preset {args.lm_preset} ({python['parameters']:,} parameters); device: "
            f"{python['device']}; torch {python['torch_version']}; Python AdamW: "
            f"{python['optimizer']}; C++ fast: {' '.join(fast_flags)}; {args.steps} steps after "
            f"{args.warmup_steps} warm-up; median of {args.repeats} interleaved runs (nanoGPT "
            f"eager and compiled, C++ plain and fast); MFU by 6 N + 12 L d T")
    if failures:
        note += "; failed: " + "; ".join(failures)
    print(note)
    return lm_columns(compile_modes), rows, note


def write_markdown(handle, columns, rows, note):
    handle.write("| " + " | ".join(columns) + " |\n")
    handle.write("|" + "---|" * len(columns) + "\n")
    for row in rows:
        handle.write("| " + " | ".join(row) + " |\n")
    handle.write(f"\n{note}\n")


def resnet_table(args, compile_modes):
    """The cross-check, then the ResNet-18 rows: (columns, rows, note)."""
    tolerance = args.loss_tolerance or LOSS_TOLERANCE[args.device]
    cross_check(args.binary, tolerance, args.device, args.cross_check_batch)
    columns = ["batch", "precision"] + rate_columns("img", compile_modes)
    rows = []
    for batch in (int(b) for b in args.batches.split(",")):
        for precision in args.precisions.split(","):
            graph = args.cuda_graph and precision != "fp16"
            python, cpp = interleaved(
                args.repeats,
                lambda: run_python(batch, precision, "none", args.steps, args.warmup_steps, graph,
                                   args.device, args.python_optimizer),
                lambda: run_cpp(args.binary, batch, precision, args.steps, args.warmup_steps,
                                graph, args.cpp_flags.split(), args.device))
            compiled = [run_python(batch, precision, mode, args.steps, args.warmup_steps, False,
                                   args.device, args.python_optimizer)
                        for mode in compile_modes]
            train_flops_per_image = 3 * 2 * python["forward_macs"]
            row = [str(batch), precision + (" graph" if graph else "")]
            row += rate_cells("images_per_s", python, cpp, compiled, train_flops_per_image,
                              peak_tflops(python["device"], precision))
            rows.append(row)
            print(" | ".join(row), flush=True)
    note = (f"device: {python['device']}; torch {python['torch_version']}; Python SGD: "
            f"{python['optimizer']}; forward MACs/image: {python['forward_macs']}; "
            f"{args.steps} steps after {args.warmup_steps} warm-up; "
            f"median of {args.repeats} interleaved runs")
    print(note)
    return columns, rows, note


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="the scalestudy-train executable")
    parser.add_argument("--batches", default="128,512")
    parser.add_argument("--precisions", default="fp32,bf16,fp16")
    parser.add_argument("--compile", default="",
                        help="torch.compile modes to add, comma-separated (e.g. default,max-autotune)")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cuda-graph", action="store_true",
                        help="C++ --cuda-graph against the Python CUDA-graph variant")
    parser.add_argument("--loss-tolerance", type=float, default=None,
                        help="largest accepted relative difference of the cross-check's losses "
                             "(default: LOSS_TOLERANCE for the device)")
    parser.add_argument("--cpp-flags", default="", help="extra flags for the C++ side")
    parser.add_argument("--markdown", default="", help="also write the table here (markdown)")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--cross-check-batch", type=int, default=CROSS_CHECK_BATCH)
    parser.add_argument("--python-optimizer", choices=["auto", "fused", "foreach"],
                        default="auto", help="reference_train.py --optimizer")
    parser.add_argument("--lm-batches", default="",
                        help="the LM table's per-GPU batches, comma-separated; empty: none")
    parser.add_argument("--lm-preset", choices=["tiny", "small"], default="small")
    parser.add_argument("--lm-precision", choices=["bf16", "fp32"], default="bf16")
    parser.add_argument("--lm-fast-flags", default=None,
                        help="scalestudy-lm's flags for the C++ fast column (default: "
                             "LM_FAST_FLAGS for the device)")
    parser.add_argument("--lm-binary", default="",
                        help="the scalestudy-lm executable (default: beside --binary)")
    args = parser.parse_args()
    if args.device == "cpu" and (args.cuda_graph or args.compile):
        parser.error("--device cpu runs neither --cuda-graph nor --compile")

    compile_modes = [mode for mode in args.compile.split(",") if mode]
    tables = []
    if args.batches:
        tables.append(resnet_table(args, compile_modes))
    if args.lm_batches:
        tables.append(lm_table(args, compile_modes))
    if args.markdown:
        with open(args.markdown, "w") as handle:
            for index, table in enumerate(tables):
                if index:
                    handle.write("\n")
                write_markdown(handle, *table)


if __name__ == "__main__":
    try:
        main()
    except RunFailed as error:
        sys.exit(str(error))
