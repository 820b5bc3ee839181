#!/usr/bin/env python3
"""Prints the markdown table that the benchmark scripts' doc sections show.

Reads samples, one per line: ROW<TAB>COLUMN<TAB>VALUE (a repeat's figure for one cell).
Each cell is the median of its samples with [min-max]; rows and columns keep the order in
which they first appear. `--ratio NAME A B` adds a column NAME, the ratio of columns A's
and B's medians (the samples are not paired, so no per-repeat range is claimed).
A sample that is not a number (a failed run prints `failed`) counts in the cell's
`n failed` note instead of its statistics.
"""
import argparse
import statistics
import sys


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--row-header", default="", help="the first column's header")
    parser.add_argument("--digits", type=int, default=1, help="decimals of medians and ranges")
    parser.add_argument("--ratio", action="append", default=[], nargs=3,
                        metavar=("NAME", "A", "B"))
    parser.add_argument("samples", nargs="?", type=argparse.FileType(), default=sys.stdin)
    return parser.parse_args()


def read_samples(lines):
    cells, rows, columns, failed = {}, [], [], {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 3:
            sys.exit(f"median_table: line {number}: want ROW<TAB>COLUMN<TAB>VALUE, got {line!r}")
        row, column, value = fields
        if row not in rows:
            rows.append(row)
        if column not in columns:
            columns.append(column)
        try:
            number_value = float(value)
        except ValueError:
            failed[(row, column)] = failed.get((row, column), 0) + 1
            continue
        cells.setdefault((row, column), []).append(number_value)
    return cells, rows, columns, failed


def main():
    args = parse_args()
    cells, rows, columns, failed = read_samples(args.samples)
    ratios = args.ratio
    for name, numerator, denominator in ratios:
        if numerator not in columns or denominator not in columns:
            sys.exit(f"median_table: --ratio {name}: no column {numerator!r} or {denominator!r}")
    digits = args.digits

    def cell(row, column):
        samples = cells.get((row, column), [])
        text = ""
        if samples:
            text = f"{statistics.median(samples):.{digits}f}"
            if len(samples) > 1:
                text += f" [{min(samples):.{digits}f}-{max(samples):.{digits}f}]"
        if (row, column) in failed:
            text += f" ({failed[(row, column)]} failed)"
        return text.strip()

    def ratio(row, numerator, denominator):
        top, bottom = cells.get((row, numerator)), cells.get((row, denominator))
        if not top or not bottom or statistics.median(bottom) == 0:
            return ""
        return f"{statistics.median(top) / statistics.median(bottom):.2f}"

    headers = [args.row_header] + columns + [name for name, _, _ in ratios]
    print("| " + " | ".join(headers) + " |")
    print("|" + "---|" * len(headers))
    for row in rows:
        values = [row] + [cell(row, column) for column in columns]
        values += [ratio(row, numerator, denominator) for _, numerator, denominator in ratios]
        print("| " + " | ".join(values) + " |")
    counts = sorted({len(samples) for samples in cells.values()})
    print(f"\nmedian [min-max] of {'/'.join(map(str, counts))} sample(s) per cell")


if __name__ == "__main__":
    main()
