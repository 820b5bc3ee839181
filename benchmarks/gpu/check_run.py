#!/usr/bin/env python3
"""Checks one smoke-training run of the GPU validation kit from its rank0.sqlite: the
training loss fell from the first epoch to the last, the final validation accuracy lies
above chance by a margin, and the keys a precision must record are there (fp16:
loss_scale_skipped_steps). A language model on synthetic tokens (--lm) has no accuracy and
nothing to learn: its every epoch's loss must be finite and near ln(vocab), and it must
record tokens/s and its FLOP rule; its row names tokens/s and TFLOP/s per rank. Prints one
markdown table row; exits 1 with the reason on a failed check. Standard library only.

  check_run.py RUN_DIR --label bf16 --classes 10 [--require-key loss_scale_skipped_steps]
  check_run.py RUN_DIR --label lm --lm [--same-losses-as OTHER_RUN_DIR]
  check_run.py --header     the table's header, for the rows above
"""
import argparse
import math
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
    parser.add_argument("--lm", action="store_true", help="a language model on random tokens")
    parser.add_argument("--same-losses-as", metavar="RUN_DIR",
                        help="--lm: every step's loss must equal that run's (ZeRO-1 against "
                        "none at one rank: the same arithmetic)")
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
    if args.lm:
        check_language_model(args.label, losses, summary, args.run_dir, args.same_losses_as)
        return
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


def step_losses(run_dir):
    with sqlite3.connect(os.path.join(run_dir, "rank0.sqlite")) as db:
        return dict(db.execute("SELECT global_step, loss FROM steps"))


def check_language_model(label, losses, summary, run_dir, same_losses_as):
    failures = [f"summary lacks {key}" for key in
                ("tokens_per_s", "train_flops_per_sample", "vocab", "samples_per_s")
                if key not in summary]
    if same_losses_as:
        ours, theirs = step_losses(run_dir), step_losses(same_losses_as)
        differing = [step for step in theirs if ours.get(step) != theirs[step]]
        if not theirs or len(ours) != len(theirs) or differing:
            failures.append(f"step losses differ from {same_losses_as}'s at steps "
                            f"{differing[:5]} ({len(ours)} against {len(theirs)} steps)")
    if failures:
        sys.exit(f"{label}: " + "; ".join(failures))
    chance = math.log(summary["vocab"])
    if not losses or not all(math.isfinite(loss) and abs(loss - chance) < 1 for loss in losses):
        sys.exit(f"{label}: epoch losses {losses} are not all finite and within 1 of "
                 f"ln(vocab) = {chance:.3f}")
    tflops = summary["train_flops_per_sample"] * summary["samples_per_s"] / 1e12
    ranks = summary.get("global_batch", 1) / summary.get("per_rank_batch", 1)
    print(f"| {label}: {summary['tokens_per_s']:.0f} tokens/s, {tflops / ranks:.1f} TFLOP/s "
          f"per rank | {losses[0]:.3f} → {losses[-1]:.3f} | - | {summary['samples_per_s']:.0f} "
          f"| |")


if __name__ == "__main__":
    main()
