#!/usr/bin/env python3
"""Checks one smoke-training run of the GPU validation kit from its rank0.sqlite: the model
learned, and the keys a precision must record are there (fp16: loss_scale_skipped_steps).
Learned means every epoch's training loss is finite, a later epoch's fell below the first's
by --min-loss-fall, and the best epoch's validation accuracy lies above chance by --margin.
A short run is noisy and its kernels differ by CPU (AVX2 against AVX-512 bf16) and GPU:
the last epoch alone does not decide. A language model on synthetic tokens (--lm) has no accuracy and
nothing to learn: its every epoch's loss must be finite and near ln(vocab), and it must
record tokens/s and its FLOP rule; its row names tokens/s and TFLOP/s per rank. A model
without accuracy (--loss-only: the DDPM's denoising loss) learned when every epoch's training
and validation loss is finite and a later epoch's training loss fell by --min-loss-fall. With
--losses-match, every step's loss must match another run's (ZeRO-1 against none at one rank:
the same arithmetic): bit for bit where both ran --deterministic and the --noise-runs pair
(two runs of one command) agree bit for bit too; else within the larger of --rel-tolerance
of the loss and twice the pair's largest difference, since CUDA's default kernels differ run
to run. Prints one markdown table row; exits 1 with the reason on a failed check. Standard
library only.

  check_run.py RUN_DIR --label bf16 --classes 10 [--require-key loss_scale_skipped_steps]
  check_run.py RUN_DIR --label ddpm --loss-only
  check_run.py RUN_DIR --label lm --lm [--losses-match OTHER_RUN_DIR [--noise-runs A B]]
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
                        help="the best validation accuracy must exceed 1/classes by this much")
    parser.add_argument("--min-loss-fall", type=float, default=0.05,
                        help="a later epoch's training loss must be below the first's by this "
                        "fraction of it")
    parser.add_argument("--require-key", action="append", default=[])
    parser.add_argument("--loss-only", action="store_true",
                        help="a model without accuracy: only its losses decide")
    parser.add_argument("--lm", action="store_true", help="a language model on random tokens")
    parser.add_argument("--losses-match", metavar="RUN_DIR",
                        help="--lm: every step's loss must match that run's")
    parser.add_argument("--noise-runs", nargs=2, metavar="RUN_DIR",
                        help="--losses-match: two runs of one command, whose step losses "
                        "measure the run-to-run noise")
    parser.add_argument("--rel-tolerance", type=float, default=1e-3,
                        help="--losses-match without bit-identical kernels: the least "
                        "allowed difference, as a fraction of the loss")
    args = parser.parse_args()
    if args.header:
        print("| run | train loss first → last epoch | val acc best (epoch), last | img/s "
              "| fp16 skipped steps |")
        print("|---|---|---|---|---|")
        return
    if not args.run_dir or not args.label:
        parser.error("RUN_DIR and --label are required")

    with sqlite3.connect(os.path.join(args.run_dir, "rank0.sqlite")) as db:
        epochs = db.execute(
            "SELECT train_loss, val_acc, val_loss FROM epochs ORDER BY epoch").fetchall()
        summary = dict(db.execute("SELECT name, value FROM summary"))
    losses = [loss for loss, _, _ in epochs]
    if args.lm:
        check_language_model(args.label, losses, summary, args)
        return
    if args.loss_only:
        check_loss_only(args.label, losses, [loss for _, _, loss in epochs], summary, args)
        return
    accuracies = [accuracy for _, accuracy, _ in epochs]
    failures = learning_failures(losses, accuracies, args)
    failures += [f"summary lacks {key}" for key in args.require_key if key not in summary]
    if failures:
        sys.exit(f"{args.label}: " + "; ".join(failures))
    best_epoch = max((epoch for epoch, accuracy in enumerate(accuracies) if accuracy is not None),
                     key=lambda epoch: accuracies[epoch])
    skipped = summary.get("loss_scale_skipped_steps")
    print(f"| {args.label} | {losses[0]:.3f} → {losses[-1]:.3f} | {accuracies[best_epoch]:.3f} "
          f"({best_epoch + 1}), {accuracies[-1]:.3f} | {summary['samples_per_s']:.0f} | "
          f"{'' if skipped is None else f'{skipped:.0f}'} |")


def all_finite(values):
    return all(value is not None and math.isfinite(value) for value in values)


def loss_fall_failures(losses, args):
    """Why the epochs' training losses show no learning: [] when every one is finite and a
    later one fell below the first by the fraction asked."""
    if len(losses) < 2 or not all_finite(losses):
        return [f"training losses {losses} are not two or more finite epochs"]
    if not min(losses[1:]) <= (1 - args.min_loss_fall) * losses[0]:
        return [f"training loss did not fall by {args.min_loss_fall:.0%} of the first "
                f"epoch's in a later epoch: {[round(loss, 4) for loss in losses]}"]
    return []


def learning_failures(losses, accuracies, args):
    """Why the epochs' training losses and validation accuracies show no learning: [] when
    the training losses fell (loss_fall_failures) and the best accuracy beats chance by the
    margin."""
    failures = loss_fall_failures(losses, args)
    measured = [accuracy for accuracy in accuracies if accuracy is not None]
    chance = 1 / args.classes
    if not measured or max(measured) <= chance + args.margin:
        failures.append(f"best validation accuracy {max(measured, default=None)} of epochs "
                        f"{accuracies} is not above chance (1/{args.classes}) + {args.margin}")
    return failures


def check_loss_only(label, losses, val_losses, summary, args):
    failures = loss_fall_failures(losses, args)
    if not all_finite(val_losses):
        failures.append(f"validation losses {val_losses} are not all finite")
    if failures:
        sys.exit(f"{label}: " + "; ".join(failures))
    best = min(range(len(val_losses)), key=lambda epoch: val_losses[epoch])
    print(f"| {label} | {losses[0]:.3f} → {losses[-1]:.3f} | val loss {val_losses[best]:.3f} "
          f"({best + 1}), {val_losses[-1]:.3f} | {summary['samples_per_s']:.0f} | |")


def step_losses(run_dir):
    with sqlite3.connect(os.path.join(run_dir, "rank0.sqlite")) as db:
        return dict(db.execute("SELECT global_step, loss FROM steps"))


def deterministic(run_dir):
    with sqlite3.connect(os.path.join(run_dir, "rank0.sqlite")) as db:
        row = db.execute("SELECT value FROM provenance WHERE key = 'deterministic'").fetchone()
    return row is not None and row[0] == "true"


def largest_difference(ours, theirs):
    return max((abs(ours[step] - theirs[step]) for step in theirs if step in ours), default=0.0)


def loss_mismatches(run_dir, reference_dir, noise_runs, rel_tolerance):
    """Why the runs' step losses do not match ([] when they do), and the rule applied."""
    ours, theirs = step_losses(run_dir), step_losses(reference_dir)
    if not theirs or sorted(ours) != sorted(theirs):
        return [f"steps {sorted(ours)[:3]}… ({len(ours)}) are not {reference_dir}'s "
                f"{sorted(theirs)[:3]}… ({len(theirs)})"], "none"
    noise = largest_difference(*(step_losses(run) for run in noise_runs)) if noise_runs else 0.0
    runs = [run_dir, reference_dir, *(noise_runs or [])]
    if noise == 0.0 and all(deterministic(run) for run in runs):
        rule = "bit for bit (deterministic kernels)"
        allowed = {step: 0.0 for step in theirs}
    else:
        rule = (f"within max({rel_tolerance:g} of the loss, 2 x the noise {noise:.2g})"
                if noise_runs else f"within {rel_tolerance:g} of the loss")
        allowed = {step: max(rel_tolerance * abs(loss), 2 * noise) for step, loss in theirs.items()}
    differing = [step for step in theirs if abs(ours[step] - theirs[step]) > allowed[step]]
    if not differing:
        return [], rule
    worst = max(differing, key=lambda step: abs(ours[step] - theirs[step]))
    return [f"step losses differ from {reference_dir}'s beyond {rule} at steps {differing[:5]} "
            f"(step {worst}: {ours[worst]!r} against {theirs[worst]!r})"], rule


def check_language_model(label, losses, summary, args):
    failures = [f"summary lacks {key}" for key in
                ("tokens_per_s", "train_flops_per_sample", "vocab", "samples_per_s")
                if key not in summary]
    rule = None
    if args.losses_match:
        mismatches, rule = loss_mismatches(args.run_dir, args.losses_match, args.noise_runs,
                                           args.rel_tolerance)
        failures += mismatches
    if failures:
        sys.exit(f"{label}: " + "; ".join(failures))
    chance = math.log(summary["vocab"])
    if not losses or not all(math.isfinite(loss) and abs(loss - chance) < 1 for loss in losses):
        sys.exit(f"{label}: epoch losses {losses} are not all finite and within 1 of "
                 f"ln(vocab) = {chance:.3f}")
    tflops = summary["train_flops_per_sample"] * summary["samples_per_s"] / 1e12
    ranks = summary.get("global_batch", 1) / summary.get("per_rank_batch", 1)
    matched = f", step losses match {rule}" if rule else ""
    print(f"| {label}: {summary['tokens_per_s']:.0f} tokens/s, {tflops / ranks:.1f} TFLOP/s "
          f"per rank{matched} | {losses[0]:.3f} → {losses[-1]:.3f} | - | "
          f"{summary['samples_per_s']:.0f} | |")


if __name__ == "__main__":
    main()
