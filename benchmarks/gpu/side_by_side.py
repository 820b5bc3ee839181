#!/usr/bin/env python3
"""Runs scalestudy's C++ training step and the PyTorch-Python reference side by side on one
GPU and prints images/s for each, their ratio and the model FLOP utilisation (MFU).

Grid: per-GPU batch 128 and 512 x fp32 / bf16 / fp16, ResNet-18 CIFAR shape, channels_last,
synthetic CIFAR-shaped data resident on the GPU. MFU = images/s x 3 x forward FLOPs /
peak, with training FLOPs ~ 3 x forward (backward ~ 2 x forward) and 2 FLOPs per
multiply-accumulate; the peak comes from the table below by device name (dense tensor-core
figures for bf16/fp16 and tf32, plain CUDA-core figures for fp32).

Usage (on the GPU machine, from the repository root, after building with
-DSCALESTUDY_CUDA=ON as docs/gpu.md shows):
  python3 benchmarks/gpu/side_by_side.py --binary build-cuda/bin/scalestudy-train \
      [--compile default,max-autotune] [--batches 128,512] [--precisions fp32,bf16,fp16]
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

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


def run_python(batch, precision, compile_mode, steps, warmup):
    command = [sys.executable, os.path.join(HERE, "reference_train.py"),
               "--batch-size", str(batch), "--precision", precision, "--channels-last", "true",
               "--compile", compile_mode, "--steps", str(steps), "--warmup-steps", str(warmup)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def run_cpp(binary, batch, precision, steps, warmup, extra_flags):
    with tempfile.TemporaryDirectory() as out_dir:
        command = [binary, "--dataset", "synthetic", "--model", "resnet18",
                   "--device", "cuda", "--data-on-device", "true", "--channels-last", "true",
                   "--precision", precision, "--batch-size", str(batch), "--epochs", "1",
                   "--steps-per-epoch", str(steps + warmup),
                   "--measure-warmup-steps", str(warmup), "--out-dir", out_dir] + extra_flags
        subprocess.run(command, check=True, capture_output=True, text=True)
        with sqlite3.connect(os.path.join(out_dir, "rank0.sqlite")) as db:
            (rate,) = db.execute(
                "SELECT value FROM summary WHERE name = 'samples_per_s'").fetchone()
    return {"images_per_s": rate}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="the scalestudy-train executable")
    parser.add_argument("--batches", default="128,512")
    parser.add_argument("--precisions", default="fp32,bf16,fp16")
    parser.add_argument("--compile", default="",
                        help="torch.compile modes to add, comma-separated (e.g. default,max-autotune)")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--cpp-flags", default="", help="extra flags for the C++ side, e.g. "
                        "'--cuda-graph true'")
    args = parser.parse_args()

    compile_modes = [mode for mode in args.compile.split(",") if mode]
    header = f"{'batch':>5} {'prec':>5} {'python img/s':>13} {'C++ img/s':>11} {'C++/py':>7}"
    header += "".join(f" {'compile-' + m + ' img/s':>26} {'C++/c':>6}" for m in compile_modes)
    header += f" {'MFU C++':>8} {'MFU py':>7}"
    print(header)
    for batch in (int(b) for b in args.batches.split(",")):
        for precision in args.precisions.split(","):
            python = run_python(batch, precision, "none", args.steps, args.warmup_steps)
            cpp = run_cpp(args.binary, batch, precision, args.steps, args.warmup_steps,
                          args.cpp_flags.split())
            line = (f"{batch:>5} {precision:>5} {python['images_per_s']:>13.0f} "
                    f"{cpp['images_per_s']:>11.0f} "
                    f"{cpp['images_per_s'] / python['images_per_s']:>7.2f}")
            for mode in compile_modes:
                compiled = run_python(batch, precision, mode, args.steps, args.warmup_steps)
                line += (f" {compiled['images_per_s']:>26.0f} "
                         f"{cpp['images_per_s'] / compiled['images_per_s']:>6.2f}")
            peak = peak_tflops(python["device"], precision)
            train_flops_per_image = 3 * 2 * python["forward_macs"]
            for rate in (cpp["images_per_s"], python["images_per_s"]):
                line += (f" {100 * rate * train_flops_per_image / (peak * 1e12):>7.1f}%"
                         if peak else "      n/a")
            print(line, flush=True)
    print(f"device: {python['device']}; torch {python['torch_version']}; forward MACs/image: "
          f"{python['forward_macs']}; steps {args.steps} after {args.warmup_steps} warm-up")


if __name__ == "__main__":
    main()
