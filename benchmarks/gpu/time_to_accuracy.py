#!/usr/bin/env python3
"""The GPU kit's time-to-accuracy run: one training run's epochs (learning rate, losses,
validation accuracy, images/s, seconds) and its time to the target validation accuracy, from
its rank0.sqlite, as a markdown table. Each epoch also shows its measured steps' median time
and phases and the seconds of its training outside the steps, so a throughput that falls
from epoch to epoch at a fixed configuration names the phase that grew (an H200 run fell
from 29.8k to 23.2k images/s between epochs 2 and 8). Exits 1 when the run never reached its
target. Standard library only.

  time_to_accuracy.py RUN_DIR --label "resnet18 fashion-mnist bf16 b256"
"""
import argparse
import os
import sqlite3
import statistics
import sys

PHASES = ("step_ms", "data_ms", "forward_ms", "backward_ms", "comm_exposed_ms", "optimizer_ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--label", required=True)
    args = parser.parse_args()
    with sqlite3.connect(os.path.join(args.run_dir, "rank0.sqlite")) as db:
        epochs = db.execute("SELECT epoch, lr, train_loss, val_loss, val_acc, samples_per_s, "
                            "epoch_s FROM epochs ORDER BY epoch").fetchall()
        summary = dict(db.execute("SELECT name, value FROM summary"))
        steps = epoch_steps(db)
    print(f"{args.label}\n")
    print("| epoch | lr | train loss | val loss | val acc | img/s | epoch s | median ms: step "
          "| data | forward | backward | comm | optimizer | s outside steps |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for epoch, lr, train_loss, val_loss, val_acc, rate, seconds in epochs:
        rows = steps.get(epoch, [])
        medians = ([statistics.median(column) for column in zip(*rows)] if rows
                   else [float("nan")] * len(PHASES))
        every_step_s = sum(row[0] for row in rows) / 1000
        print(f"| {epoch} | {lr:.4f} | {train_loss:.4f} | {val_loss:.4f} | {val_acc:.4f} | "
              f"{rate:.0f} | {seconds:.2f} | "
              + " | ".join(f"{median:.2f}" for median in medians)
              + f" | {seconds - every_step_s:.2f} |")
    target = summary.get("target_val_accuracy")
    reached = summary.get("time_to_target_s")
    if reached is None:
        print(f"\ntarget val accuracy {target}: not reached in {len(epochs)} epochs")
        sys.exit(1)
    print(f"\ntarget val accuracy {target}: reached in epoch "
          f"{summary['time_to_target_epoch']:.0f} after {reached:.1f} s of training and "
          f"validation; final val accuracy {summary.get('final_val_acc', float('nan')):.4f}")


def epoch_steps(db):
    """Each epoch's steps (warm-up ones included, since the seconds outside the steps count
    them), as rows of PHASES."""
    by_epoch = {}
    for epoch, *times in db.execute(f"SELECT epoch, {', '.join(PHASES)} FROM steps"):
        by_epoch.setdefault(epoch, []).append(times)
    return by_epoch


if __name__ == "__main__":
    main()
