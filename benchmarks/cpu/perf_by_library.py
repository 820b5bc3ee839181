#!/usr/bin/env python3
"""Where a CPU training run spends its time, by library: the profile rows of
docs/performance.md.

Runs COMMAND under `perf record -F RATE` (all its threads and children), reads
`perf report --sort dso` and sums the samples into the groups the doc's table names:
oneDNN JIT (code that oneDNN generates at run time, which perf shows as [JIT]), libgomp,
libtorch_cpu, BLAS, kernel, interpreter (the Python process itself) and the rest.
Prints one markdown row: LABEL | the groups' percentages.

  usage: perf_by_library.py [--rate HZ] [--label TEXT] -- COMMAND [ARG ...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

GROUPS = [
    ("oneDNN JIT", re.compile(r"^\[JIT\]")),
    ("libgomp", re.compile(r"^libgomp")),
    ("libtorch_cpu", re.compile(r"^libtorch_cpu")),
    ("BLAS", re.compile(r"^lib(open)?blas|^liblapack")),
    ("kernel", re.compile(r"^\[kernel")),
    ("interpreter", re.compile(r"^(libpython|python3)")),
]
OTHER = "other"
REPORT_LINE = re.compile(r"^\s*([0-9.]+)%\s+(\S.*?)\s*$")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=499, help="samples per second (perf -F)")
    parser.add_argument("--label", default="", help="the row's first cell (default: COMMAND)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("COMMAND is missing")
    return args


def share_by_group(report):
    shares = {name: 0.0 for name, _ in GROUPS}
    shares[OTHER] = 0.0
    for line in report.splitlines():
        match = REPORT_LINE.match(line)
        if not match:
            continue
        percent, library = float(match.group(1)), match.group(2)
        group = next((name for name, pattern in GROUPS if pattern.search(library)), OTHER)
        shares[group] += percent
    return shares


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="scalestudy-perf.") as work:
        data = os.path.join(work, "perf.data")
        record = subprocess.run(["perf", "record", "-F", str(args.rate), "-o", data, "--"]
                                + args.command, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        if record.returncode != 0:
            sys.exit(f"perf_by_library: {' '.join(args.command)} exited {record.returncode}")
        report = subprocess.run(["perf", "report", "-i", data, "--sort", "dso", "--stdio"],
                                capture_output=True, text=True, check=True)
    shares = share_by_group(report.stdout)
    label = args.label or " ".join(args.command)
    print("| run | " + " | ".join(shares) + " |")
    print("|" + "---|" * (len(shares) + 1))
    print(f"| {label} | " + " | ".join(f"{share:.1f} %" for share in shares.values()) + " |")


if __name__ == "__main__":
    main()
