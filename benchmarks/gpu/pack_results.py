#!/usr/bin/env python3
"""Packs what the GPU validation kit wrote into its output folder so that all of it comes
back from a lent machine, which returns at most 8 files, at most one folder down.

From the kit's work folder (validate.sh --work) it takes the step table (steps.tsv: name,
bound in seconds, wall seconds, status, command), the reports (preflight.md, smoke.md,
instrument.md, side_by_side.md, allreduce.md, time_to_accuracy.md), every log and every run
database, and
writes to the output folder, flat:
  validation.md        the summary: steps with their bounds and wall seconds, the reports,
                       the tail of each failed step's log, and every returned file's size
  <report>.md          each report the kit produced, as it is
  kit-logs-and-runs.tar.gz  the whole work folder (logs, run databases, the reports)
then checks the rule and fails if the output folder breaks it.

  pack_results.py --work DIR --out DIR [--title TEXT]

Standard library only.
"""
import argparse
import os
import shutil
import sys
import tarfile

MAX_FILES = 8
MAX_DEPTH = 1  # folders below the output folder
REPORTS = ["preflight.md", "smoke.md", "instrument.md", "side_by_side.md", "allreduce.md",
           "time_to_accuracy.md"]
SUMMARY = "validation.md"
TARBALL = "kit-logs-and-runs.tar.gz"
FAILED_LOG_LINES = 15


def read(path):
    with open(path, errors="replace") as file:
        return file.read()


def steps(work):
    path = os.path.join(work, "steps.tsv")
    if not os.path.exists(path):
        return []
    return [line.rstrip("\n").split("\t") for line in read(path).splitlines() if line.strip()]


def tail(path, lines):
    if not os.path.exists(path):
        return "(no log)"
    return "\n".join(read(path).splitlines()[-lines:])


def rule_breaks(out):
    """Why the output folder breaks the 8-file, one-folder rule (empty when it keeps it)."""
    files, breaks = [], []
    for folder, _, names in os.walk(out):
        depth = os.path.relpath(folder, out).count(os.sep) + (folder != out)
        if depth > MAX_DEPTH:
            breaks.append(f"{folder} is {depth} folders down (at most {MAX_DEPTH})")
        files += [os.path.join(folder, name) for name in names]
    if len(files) > MAX_FILES:
        breaks.append(f"{len(files)} files (at most {MAX_FILES})")
    return breaks


def summary(work, out, title, returned):
    lines = [f"# {title}", "", "## Steps", "",
             "| # | step | bound s | wall s | status |", "|---|---|---|---|---|"]
    table = steps(work)
    for number, (name, bound_s, wall_s, status, _command) in enumerate(table, 1):
        lines.append(f"| {number} | {name} | {bound_s} | {wall_s} | {status} |")
    total = sum(float(row[2]) for row in table if row[2].replace(".", "", 1).isdigit())
    lines += ["", f"Steps took {total:.0f} s in all."]
    for report in REPORTS:
        path = os.path.join(work, report)
        if os.path.exists(path):
            lines += ["", f"## {report}", "", read(path).rstrip()]
    for number, (name, _bound, _wall, status, command) in enumerate(table, 1):
        if status not in ("ok",) and not status.startswith("skipped"):
            log = os.path.join(work, "logs", f"{number}-{name}.log")
            lines += ["", f"## Failed: {name} ({status})", "", "```", command, "---",
                      tail(log, FAILED_LOG_LINES), "```"]
    lines += ["", "## Files returned", "", "| file | bytes |", "|---|---|"]
    lines += [f"| {name} | {os.path.getsize(os.path.join(out, name))} |" for name in returned]
    lines.append(f"| {SUMMARY} | this file |")
    return "\n".join(lines) + "\n"


def pack(work, out, title):
    os.makedirs(out, exist_ok=True)
    for name in REPORTS + [TARBALL, SUMMARY]:  # an earlier run's, which this one replaces
        if os.path.exists(os.path.join(out, name)):
            os.remove(os.path.join(out, name))
    returned = []
    for report in REPORTS:
        if os.path.exists(os.path.join(work, report)):
            shutil.copyfile(os.path.join(work, report), os.path.join(out, report))
            returned.append(report)
    with tarfile.open(os.path.join(out, TARBALL), "w:gz") as tarball:
        tarball.add(work, arcname=os.path.basename(os.path.normpath(work)))
    returned.append(TARBALL)
    with open(os.path.join(out, SUMMARY), "w") as file:
        file.write(summary(work, out, title, returned))
    return rule_breaks(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--title", default="GPU validation")
    args = parser.parse_args()
    if os.path.realpath(args.out).startswith(os.path.realpath(args.work) + os.sep):
        sys.exit("pack_results: the output folder must not lie inside the work folder")
    breaks = pack(args.work, args.out, args.title)
    if breaks:
        sys.exit(f"pack_results: {args.out} breaks the {MAX_FILES}-file, {MAX_DEPTH}-folder "
                 "rule: " + "; ".join(breaks))
    print(f"pack_results: {args.out}/{SUMMARY}, {len(os.listdir(args.out))} files")


if __name__ == "__main__":
    main()
