#!/usr/bin/python3
"""Two builds of a workload binary (or one binary with two flag sets) side by side: the same
training command run with A and with B in interleaved pairs, the order alternating so that
neither always runs second, on a CPU. Prints each run's samples/s (the run database's
summary) and, per side, the median [min-max], then the ratio of the medians B/A with the
range of the per-pair ratios. Nothing is asserted: a ratio whose pair range straddles 1.0
is not a verdict.

Usage (repository root):
  /usr/bin/python3 benchmarks/cpu/binary_ab.py --a OLD/scalestudy-train --b build/bin/scalestudy-train \\
      [--pairs 7] [--a-args "..."] [--b-args "..."] -- --model resnet18 --dataset synthetic ...
Everything after `--` goes to both sides; --a-args / --b-args add flags to one side only.
"""
import argparse
import os
import shlex
import sqlite3
import statistics
import subprocess
import sys
import tempfile


def samples_per_s(binary, args, out_dir):
    command = [binary] + args + ["--out-dir", out_dir]
    finished = subprocess.run(command, capture_output=True, text=True)
    if finished.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed ({finished.returncode}):\n"
                           f"{finished.stdout}\n{finished.stderr}")
    with sqlite3.connect(os.path.join(out_dir, "rank0.sqlite")) as db:
        (rate,) = db.execute("SELECT value FROM summary WHERE name = 'samples_per_s'").fetchone()
    return rate


def spread(values):
    return f"{statistics.median(values):.3g} [{min(values):.3g}-{max(values):.3g}]"


def main():
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="binary of side A")
    parser.add_argument("--b", required=True, help="binary of side B")
    parser.add_argument("--a-args", default="", help="flags for side A only")
    parser.add_argument("--b-args", default="", help="flags for side B only")
    parser.add_argument("--pairs", type=int, default=7)
    args = parser.parse_args(argv[:split])
    common = argv[split + 1:]
    sides = {"A": [args.a, common + shlex.split(args.a_args)],
             "B": [args.b, common + shlex.split(args.b_args)]}
    rates = {"A": [], "B": []}
    with tempfile.TemporaryDirectory(prefix="binary-ab-") as work_dir:
        for pair in range(args.pairs):
            for side in ("A", "B") if pair % 2 == 0 else ("B", "A"):
                binary, side_args = sides[side]
                out_dir = os.path.join(work_dir, f"{pair}-{side}")
                rates[side].append(samples_per_s(binary, side_args, out_dir))
                print(f"pair {pair + 1} {side}: {rates[side][-1]:.1f} samples/s", flush=True)
    ratios = [b / a for a, b in zip(rates["A"], rates["B"])]
    print(f"A {spread(rates['A'])} samples/s; B {spread(rates['B'])} samples/s; "
          f"B/A {statistics.median(rates['B']) / statistics.median(rates['A']):.3f} "
          f"(pairs {min(ratios):.3f}-{max(ratios):.3f}, {args.pairs} interleaved pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
