#!/usr/bin/env python3
"""The GPU kit's time-to-accuracy run: one training run's epochs (learning rate, losses,
validation accuracy, images/s, seconds) and its time to the target validation accuracy, from
its rank0.sqlite, as a markdown table. Each epoch also shows its measured steps' median time
and phases, the seconds of its training outside the steps, and the GPU's SM clock range,
average power, joules per image and clock-event (throttle) reasons over its measured steps
(the run database's `energy` table, read from NVML). A line under the table judges a
throughput that falls from epoch to epoch at a fixed configuration (an H200 run fell from
29.8k to 23.2k images/s between epochs 2 and 8): the device, when the SM clock of the
slowest epoch after the best one fell 5% or more below the best epoch's; not the device's
clocks, when they held, naming the phase that grew; undecided, when the clocks were not
read. Exits 1 when the run never reached its target. Standard library only.

  time_to_accuracy.py RUN_DIR --label "resnet18 fashion-mnist bf16 b256"
"""
import argparse
import os
import sqlite3
import statistics
import sys

PHASES = ("step_ms", "data_ms", "forward_ms", "backward_ms", "comm_exposed_ms", "optimizer_ms")
PHASE_NAMES = ("step", "data", "forward", "backward", "comm", "optimizer")
# A fall this large between epochs is a decay to explain; a clock this far below the best
# epoch's is a drop (orchestrator/results/analysis/clock_drop.hpp's kClockDropFraction).
DECAY_FRACTION = 0.05
CLOCK_DROP_FRACTION = 0.05
ENERGY_COLUMNS = ("samples", "energy_j", "avg_power_w", "sm_clock_min_mhz", "sm_clock_max_mhz",
                  "clock_events", "unavailable")


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
        energy = epoch_energy(db)
    print(f"{args.label}\n")
    print("| epoch | lr | train loss | val loss | val acc | img/s | epoch s | median ms: step "
          "| data | forward | backward | comm | optimizer | s outside steps | SM clock MHz "
          "| avg W | J/img | clock events |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    per_step = {}  # epoch -> phase medians and the seconds outside the steps, per step
    for epoch, lr, train_loss, val_loss, val_acc, rate, seconds in epochs:
        rows = steps.get(epoch, [])
        medians = ([statistics.median(column) for column in zip(*rows)] if rows
                   else [float("nan")] * len(PHASES))
        every_step_s = sum(row[0] for row in rows) / 1000
        outside_s = seconds - every_step_s
        if rows:
            per_step[epoch] = dict(zip(PHASE_NAMES, medians),
                                   outside=outside_s * 1000 / len(rows))
        print(f"| {epoch} | {lr:.4f} | {train_loss:.4f} | {val_loss:.4f} | {val_acc:.4f} | "
              f"{rate:.0f} | {seconds:.2f} | "
              + " | ".join(f"{median:.2f}" for median in medians)
              + f" | {outside_s:.2f} | " + " | ".join(energy_cells(energy.get(epoch))) + " |")
    reasons = sorted({row["unavailable"] for row in energy.values() if row["unavailable"]})
    if reasons:
        print(f"\nenergy and clocks empty: {'; '.join(reasons)}")
    verdict = decay_verdict({epoch: rate for epoch, *_, rate, _ in epochs}, energy, per_step)
    if verdict:
        print(f"\n{verdict}")
    target = summary.get("target_val_accuracy")
    reached = summary.get("time_to_target_s")
    if reached is None:
        print(f"\ntarget val accuracy {target}: not reached in {len(epochs)} epochs")
        sys.exit(1)
    print(f"\ntarget val accuracy {target}: reached in epoch "
          f"{summary['time_to_target_epoch']:.0f} after {reached:.1f} s of training and "
          f"validation; final val accuracy {summary.get('final_val_acc', float('nan')):.4f}")


def epoch_energy(db):
    """rank 0's `energy` rows by epoch; none in a database written before the table."""
    try:
        rows = db.execute(f"SELECT epoch, {', '.join(ENERGY_COLUMNS)} FROM energy").fetchall()
    except sqlite3.OperationalError:
        return {}
    return {epoch: dict(zip(ENERGY_COLUMNS, values)) for epoch, *values in rows}


def energy_cells(row):
    if row is None:
        return ["-"] * 4
    low, high = row["sm_clock_min_mhz"], row["sm_clock_max_mhz"]
    clock = "-" if low is None or high is None else f"{low:.0f}–{high:.0f}"
    power = "-" if row["avg_power_w"] is None else f"{row['avg_power_w']:.0f}"
    joules = ("-" if row["energy_j"] is None or not row["samples"]
              else f"{row['energy_j'] / row['samples']:.3g}")
    return [clock, power, joules, row["clock_events"] or "-"]


def throttle_reasons(events):
    """The clock-event names but "gpu idle", which slows nothing that runs."""
    names = [name.strip() for name in (events or "").split(",")]
    return [name for name in names if name and name != "gpu idle"]


def decay_verdict(rates, energy, per_step):
    """One line on how the throughput moved over the epochs, or None for a single epoch.
    rates: img/s by epoch; energy: epoch_energy(); per_step: by epoch, the phases' median ms
    and the ms outside the steps per step."""
    if len(rates) < 2:
        return None
    best = max(rates, key=rates.get)
    later = [epoch for epoch in rates if epoch > best]
    if not later:
        return f"throughput: the last epoch ({best}) was the fastest; no decay to explain"
    worst = min(later, key=rates.get)
    fall = 1 - rates[worst] / rates[best]
    if fall < DECAY_FRACTION:
        return (f"throughput held: no epoch after the fastest ({best}, {rates[best]:.0f} img/s) "
                f"fell {DECAY_FRACTION:.0%} below it (the slowest: {fall:.1%} below)")
    head = (f"throughput fell {fall:.0%} from epoch {best} ({rates[best]:.0f} img/s) to epoch "
            f"{worst} ({rates[worst]:.0f} img/s)")
    grown = grown_phase(per_step.get(best), per_step.get(worst))
    fast, slow = energy.get(best), energy.get(worst)
    if (fast is None or slow is None or fast["sm_clock_max_mhz"] is None
            or slow["sm_clock_min_mhz"] is None):
        why = next((row["unavailable"] for row in (slow, fast) if row and row["unavailable"]),
                   "no energy rows")
        return f"{head}: the clocks were not read ({why}), so the device cannot be judged; {grown}"
    reference = fast["sm_clock_max_mhz"]
    reasons = throttle_reasons(slow["clock_events"])
    clocks = (f"SM clock {fast['sm_clock_min_mhz']:.0f}–{reference:.0f} MHz in epoch {best}, "
              f"{slow['sm_clock_min_mhz']:.0f}–{slow['sm_clock_max_mhz']:.0f} in epoch {worst}")
    if slow["sm_clock_min_mhz"] <= (1 - CLOCK_DROP_FRACTION) * reference:
        power = ""
        if fast["avg_power_w"] is not None and slow["avg_power_w"] is not None:
            power = f", average power {fast['avg_power_w']:.0f} → {slow['avg_power_w']:.0f} W"
        return (f"{head}: the device: {clocks}{power} "
                f"({', '.join(reasons) if reasons else 'no reason given by NVML'})")
    return f"{head}: not the device's clocks ({clocks}); {grown}"


def grown_phase(fast, slow):
    """Which of the step's phases, or the time outside the steps, grew most per step."""
    if not fast or not slow:
        return "no step rows to compare"
    names = [name for name in PHASE_NAMES if name != "step"] + ["outside"]
    name = max(names, key=lambda n: slow[n] - fast[n])
    label = "outside the steps" if name == "outside" else name
    return (f"grew most a step: {label} ({fast[name]:.2f} → {slow[name]:.2f} ms; the whole "
            f"step's median {fast['step']:.2f} → {slow['step']:.2f} ms)")


def epoch_steps(db):
    """Each epoch's steps (warm-up ones included, since the seconds outside the steps count
    them), as rows of PHASES."""
    by_epoch = {}
    for epoch, *times in db.execute(f"SELECT epoch, {', '.join(PHASES)} FROM steps"):
        by_epoch.setdefault(epoch, []).append(times)
    return by_epoch


if __name__ == "__main__":
    main()
