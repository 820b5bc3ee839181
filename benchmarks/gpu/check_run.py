#!/usr/bin/env python3
"""Checks one smoke-training run of the GPU validation kit from its rank0.sqlite: the
training loss fell from the first epoch to the last, the final validation accuracy lies
above chance by a margin, and the keys a precision must record are there (fp16:
loss_scale_skipped_steps). Prints one markdown table row; exits 1 with the reason on a
failed check. Standard library only.

  check_run.py RUN_DIR --label bf16 --classes 10 [--require-key loss_scale_skipped_steps]
  check_run.py --header     the table's header, for the rows above
"""
import argparse
import os
import sqlite3
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", nargs="?")
    parser.add_argument("--label")
    parser.add_argument("--header", action="store_true")
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--margin", type=float, default=0.1,
                        help="accuracy must exceed 1/classes by this much")
    parser.add_argument("--require-key", action="append", default=[])
    args = parser.parse_args()
    if args.header:
        print("| run | train loss first → last epoch | final val acc | img/s | fp16 skipped steps |")
        print("|---|---|---|---|---|")
        return
    if not args.run_dir or not args.label:
        parser.error("RUN_DIR and --label are required")

    with sqlite3.connect(os.path.join(args.run_dir, "rank0.sqlite")) as db:
        losses = [row[0] for row in db.execute("SELECT train_loss FROM epochs ORDER BY epoch")]
        summary = dict(db.execute("SELECT name, value FROM summary"))
    failures = []
    if len(losses) < 2 or not losses[-1] < losses[0]:
        failures.append(f"training loss did not fall over the epochs: {losses}")
    accuracy = summary.get("final_val_acc")
    if accuracy is None or accuracy <= 1 / args.classes + args.margin:
        failures.append(f"final validation accuracy {accuracy} is not above chance "
                        f"(1/{args.classes}) + {args.margin}")
    failures += [f"summary lacks {key}" for key in args.require_key if key not in summary]
    if failures:
        sys.exit(f"{args.label}: " + "; ".join(failures))
    skipped = summary.get("loss_scale_skipped_steps")
    print(f"| {args.label} | {losses[0]:.3f} → {losses[-1]:.3f} | {accuracy:.3f} | "
          f"{summary['samples_per_s']:.0f} | {'' if skipped is None else f'{skipped:.0f}'} |")


if __name__ == "__main__":
    main()
