#!/usr/bin/env python3
"""The GPU kit's time-to-accuracy run: one training run's epochs (learning rate, losses,
validation accuracy, images/s, seconds) and its time to the target validation accuracy, from
its rank0.sqlite, as a markdown table. Exits 1 when the run never reached its target.
Standard library only.

  time_to_accuracy.py RUN_DIR --label "resnet18 fashion-mnist bf16 b256"
"""
import argparse
import os
import sqlite3
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--label", required=True)
    args = parser.parse_args()
    with sqlite3.connect(os.path.join(args.run_dir, "rank0.sqlite")) as db:
        epochs = db.execute("SELECT epoch, lr, train_loss, val_loss, val_acc, samples_per_s, "
                            "epoch_s FROM epochs ORDER BY epoch").fetchall()
        summary = dict(db.execute("SELECT name, value FROM summary"))
    print(f"{args.label}\n")
    print("| epoch | lr | train loss | val loss | val acc | img/s | epoch s |")
    print("|---|---|---|---|---|---|---|")
    for epoch, lr, train_loss, val_loss, val_acc, rate, seconds in epochs:
        print(f"| {epoch} | {lr:.4f} | {train_loss:.4f} | {val_loss:.4f} | {val_acc:.4f} | "
              f"{rate:.0f} | {seconds:.2f} |")
    target = summary.get("target_val_accuracy")
    reached = summary.get("time_to_target_s")
    if reached is None:
        print(f"\ntarget val accuracy {target}: not reached in {len(epochs)} epochs")
        sys.exit(1)
    print(f"\ntarget val accuracy {target}: reached in epoch "
          f"{summary['time_to_target_epoch']:.0f} after {reached:.1f} s of training and "
          f"validation; final val accuracy {summary.get('final_val_acc', float('nan')):.4f}")


if __name__ == "__main__":
    main()
