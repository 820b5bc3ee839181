"""A trainer in the style of PyTorch Lightning with a CSV logger and Hugging Face's
trainer state: argparse flags with dashes and --flag/--no-flag switches, and figures
written only to files in --log-dir by rank 0: `metrics.csv` (a header row, sparse rows:
each logged key on rows of its own) and `trainer_state.json` (`log_history`, its last
entry holding `train_samples_per_second`). Prints nothing to measure."""
import argparse
import csv
import json
import os
import time

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, required=True)
parser.add_argument("--log-dir", required=True)
parser.add_argument("--max-steps", type=int, default=5)
parser.add_argument("--step-sleep-s", type=float, default=0.01)
parser.add_argument("--progress-bar", action=argparse.BooleanOptionalAction, default=True)
args = parser.parse_args()

rank = int(os.environ.get("RANK", "0"))
world_size = int(os.environ.get("WORLD_SIZE", "1"))
history = []
rows = []
total = 0.0
for step in range(args.max_steps):
    t0 = time.time()
    time.sleep(args.step_sleep_s)
    dt = time.time() - t0
    total += dt
    if args.progress_bar and rank == 0:
        print(f"\rstep {step}", end="", flush=True)
    rows.append({"step": step, "train_loss": 2.0 / (step + 1), "step_time_s": ""})
    rows.append({"step": step, "train_loss": "", "step_time_s": f"{dt:.6f}"})
    history.append({"step": step, "loss": 2.0 / (step + 1)})
history.append({"step": args.max_steps,
                "train_samples_per_second": args.batch_size * world_size * args.max_steps / total})
if rank == 0:
    os.makedirs(args.log_dir, exist_ok=True)
    with open(os.path.join(args.log_dir, "metrics.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=["step", "train_loss", "step_time_s"])
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(args.log_dir, "trainer_state.json"), "w") as out:
        json.dump({"global_step": args.max_steps, "log_history": history}, out, indent=2)
