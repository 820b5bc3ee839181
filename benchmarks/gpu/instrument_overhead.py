#!/usr/bin/env python3
"""The GPU kit's instrumentation A/B: images/s of the same training run with --instrument
true and false (each run's rank0.sqlite summary samples_per_s), and the overhead as a
fraction of the uninstrumented rate. Prints a markdown table. Standard library only.

  instrument_overhead.py RUN_INSTRUMENTED RUN_NOT --label "bf16 b128"
"""
import argparse
import os
import sqlite3


def samples_per_s(run_dir):
    with sqlite3.connect(os.path.join(run_dir, "rank0.sqlite")) as db:
        (rate,) = db.execute("SELECT value FROM summary WHERE name = 'samples_per_s'").fetchone()
    return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instrumented")
    parser.add_argument("not_instrumented")
    parser.add_argument("--label", required=True)
    args = parser.parse_args()
    on, off = samples_per_s(args.instrumented), samples_per_s(args.not_instrumented)
    print("| run | img/s instrumented | img/s not | overhead |")
    print("|---|---|---|---|")
    print(f"| {args.label} | {on:.0f} | {off:.0f} | {100 * (off - on) / off:.1f}% |")


if __name__ == "__main__":
    main()
