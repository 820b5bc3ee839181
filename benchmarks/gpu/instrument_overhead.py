#!/usr/bin/env python3
"""The instrumentation A/B: samples/s of the same training run with --instrument true and
false (each run's rank0.sqlite summary samples_per_s), in pairs run back to back, and the
overhead as a fraction of the uninstrumented rate: per pair, and the median over the pairs
(one pair's figure moves with the machine's load; interleaved pairs and their median do
not). Prints a markdown table. Standard library only.

  instrument_overhead.py RUN_INSTRUMENTED RUN_NOT [RUN_INSTRUMENTED RUN_NOT ...] --label L
"""
import argparse
import os
import sqlite3
import statistics


def samples_per_s(run_dir):
    with sqlite3.connect(os.path.join(run_dir, "rank0.sqlite")) as db:
        (rate,) = db.execute("SELECT value FROM summary WHERE name = 'samples_per_s'").fetchone()
    return rate


def overhead_pct(on, off):
    return 100 * (off - on) / off


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR",
                        help="pairs: an instrumented run, then the same run not instrumented")
    parser.add_argument("--label", required=True)
    args = parser.parse_args()
    if len(args.runs) % 2:
        parser.error("runs come in pairs: instrumented, not instrumented")
    pairs = [(samples_per_s(on), samples_per_s(off))
             for on, off in zip(args.runs[0::2], args.runs[1::2])]
    print("| run | samples/s instrumented | samples/s not | overhead |")
    print("|---|---|---|---|")
    for number, (on, off) in enumerate(pairs, 1):
        label = args.label if len(pairs) == 1 else f"{args.label}, pair {number}"
        print(f"| {label} | {on:.0f} | {off:.0f} | {overhead_pct(on, off):.1f}% |")
    if len(pairs) > 1:
        overheads = sorted(overhead_pct(on, off) for on, off in pairs)
        print(f"| {args.label}: median of {len(pairs)} pairs [min–max] | "
              f"{statistics.median(on for on, _ in pairs):.0f} | "
              f"{statistics.median(off for _, off in pairs):.0f} | "
              f"{statistics.median(overheads):.2f}% [{overheads[0]:.1f}–{overheads[-1]:.1f}] |")


if __name__ == "__main__":
    main()
