#!/usr/bin/python3
"""Runs scalestudy's C++ training step and its PyTorch-Python twin (reference_train.py) side by
side on the CPU, on the same LibTorch, and prints one table: images/s per side, their ratio,
the C++ side's instrumentation overhead (--instrument true vs false), the share of its
wall-clock time its step timers do not see, and the C++ side on its default data path for the
CPU (--data-on-device false: the host BatchLoader, whose batches come in another order, so
it is timed but not cross-checked). Models: small-cnn and resnet18 (scalestudy-train),
ddpm (scalestudy-ddpm) and gpt-tiny (scalestudy-lm: a decoder-only language model on the bytes
of Debian's fortunes; a sample is one window of 128 tokens, and a line under the table gives
its tokens/s = samples/s x 128).

Both sides are launched by scalestudy-launch (DDP over gloo for 2 ranks), use cores / local
ranks intra-op threads, train from the same weights on the same resident data, and exclude
the same warm-up steps. Variants run interleaved (the order rotates every repeat), so a load
spike on a shared machine hits all of them alike; the table shows medians and min-max.

Before timing, a numerical cross-check per configuration: the C++ side dumps its initial
state (--dump-initial-state), both sides train 10 steps from it at equal seeds, and rank 0's
losses must agree within --loss-tolerance (relative). Exit status 1 when a run fails or a
cross-check misses; timings are never asserted.

Usage (from the repository root, after building):
  /usr/bin/python3 benchmarks/cpu/side_by_side.py --build-dir build [--repeats 5] [--quick]
      [--models small-cnn,resnet18,ddpm,gpt-tiny]
"""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CROSS_CHECK_STEPS = 10
CROSS_CHECK_BATCH = {"small-cnn": 32, "resnet18": 2, "ddpm": 2, "gpt-tiny": 8}  # per rank

# (model, per-rank batch, warm-up steps, measured steps) of the full table and of --quick.
FULL_CONFIGS = [("small-cnn", 32, 5, 40), ("resnet18", 32, 2, 10), ("ddpm", 8, 1, 2),
                ("gpt-tiny", 16, 3, 20)]
QUICK_CONFIGS = [("small-cnn", 32, 5, 10), ("resnet18", 2, 1, 1), ("ddpm", 2, 1, 1),
                 ("gpt-tiny", 16, 1, 3)]
MODELS = [config[0] for config in FULL_CONFIGS]
BINARY = {"small-cnn": "scalestudy-train", "resnet18": "scalestudy-train",
          "ddpm": "scalestudy-ddpm", "gpt-tiny": "scalestudy-lm"}

# gpt-tiny: scalestudy-lm's tiny preset (4 layers, 4 heads, d_model 128) on bytes, and the
# optimizer both sides get (AdamW's betas 0.9/0.999 and eps 1e-8 have no flags: the C++
# defaults, which reference_train.py passes explicitly).
FORTUNES_ROOT = "/usr/share/games/fortunes"
LM_SEQ_LEN = 128
LM_LR = "3e-4"
LM_WEIGHT_DECAY = "0.1"


def run(command, what):
    finished = subprocess.run(command, capture_output=True, text=True)
    if finished.returncode != 0:
        raise RuntimeError(f"{what} failed ({finished.returncode}): {' '.join(command)}\n"
                           f"{finished.stdout}\n{finished.stderr}")
    return finished.stdout


class Sides:
    def __init__(self, build_dir, models):
        self.bin_dir = os.path.join(build_dir, "bin")
        for name in ["scalestudy-launch"] + sorted({BINARY[model] for model in models}):
            if not os.access(os.path.join(self.bin_dir, name), os.X_OK):
                raise RuntimeError(f"{name} is not built in {self.bin_dir}")

    def launch(self, ranks):
        return [os.path.join(self.bin_dir, "scalestudy-launch"), "--nproc-per-node", str(ranks),
                "--"]

    def cpp(self, model, ranks, batch, warmup, steps, out_dir, instrument, dump_state="",
            data_on_device=True):
        if model == "ddpm":
            workload = [os.path.join(self.bin_dir, "scalestudy-ddpm"), "--preset", "small",
                        "--dataset", "fashion-mnist"]
        elif model == "gpt-tiny":
            workload = [os.path.join(self.bin_dir, "scalestudy-lm"), "--preset", "tiny",
                        "--seq-len", str(LM_SEQ_LEN), "--vocab", "256", "--dataset", "fortunes",
                        "--data-root", FORTUNES_ROOT, "--optimizer", "adamw", "--lr", LM_LR,
                        "--weight-decay", LM_WEIGHT_DECAY]
        else:
            dataset = "fashion-mnist" if model == "small-cnn" else "synthetic"
            workload = [os.path.join(self.bin_dir, "scalestudy-train"), "--model", model,
                        "--dataset", dataset]
        command = self.launch(ranks) + workload + [
            "--device", "cpu", "--data-on-device", "true" if data_on_device else "false",
            "--seed", "0",
            "--batch-size", str(batch), "--epochs", "1", "--steps-per-epoch", str(warmup + steps),
            "--measure-warmup-steps", str(warmup), "--val-samples", "10",
            "--log-interval", "0", "--instrument", "true" if instrument else "false",
            "--out-dir", out_dir]
        if dump_state:
            command += ["--dump-initial-state", dump_state]
        run(command, f"C++ {model}")
        with sqlite3.connect(os.path.join(out_dir, "rank0.sqlite")) as db:
            (rate,) = db.execute("SELECT value FROM summary WHERE name = 'samples_per_s'").fetchone()
            (threads,) = db.execute(
                "SELECT value FROM provenance WHERE key = 'intra_op_threads'").fetchone()
            (timed_ms,) = db.execute("SELECT SUM(step_ms) FROM steps").fetchone()
            (epoch_s,) = db.execute("SELECT epoch_s FROM epochs WHERE epoch = 1").fetchone()
            losses = [row[0] for row in db.execute("SELECT loss FROM steps ORDER BY global_step")]
        return {"images_per_s": rate, "threads": int(threads), "losses": losses,
                "untimed_share": 1 - timed_ms / (epoch_s * 1000)}

    def python(self, model, ranks, batch, warmup, steps, initial_state="", threads=0):
        command = self.launch(ranks) + [
            sys.executable, os.path.join(HERE, "reference_train.py"), "--model", model,
            "--batch-size", str(batch), "--warmup-steps", str(warmup), "--steps", str(steps),
            "--seed", "0", "--threads", str(threads)]
        if model == "gpt-tiny":
            command += ["--data-root", FORTUNES_ROOT, "--lr", LM_LR,
                        "--weight-decay", LM_WEIGHT_DECAY]
        if initial_state:
            command += ["--initial-state", initial_state]
        output = run(command, f"Python {model}")
        return json.loads(output.strip().splitlines()[-1])


def cross_check(sides, model, ranks, batch, work_dir, tolerance):
    state = os.path.join(work_dir, "initial_state.pt")
    cpp = sides.cpp(model, ranks, batch, 0, CROSS_CHECK_STEPS, os.path.join(work_dir, "check"),
                    True, dump_state=state)
    python = sides.python(model, ranks, batch, 0, CROSS_CHECK_STEPS, initial_state=state)
    pairs = list(zip(cpp["losses"], python["losses"]))
    worst = max(abs(c - p) / max(abs(p), 1e-12) for c, p in pairs)
    ok = len(pairs) == CROSS_CHECK_STEPS and worst <= tolerance
    print(f"cross-check {model:>9} ranks {ranks} batch {batch:>3}: first {len(pairs)} losses "
          f"max relative difference {worst:.2e} (tolerance {tolerance:.0e}) "
          f"{'ok' if ok else 'MISMATCH'}", flush=True)
    if not ok:
        print(f"  C++    {cpp['losses']}\n  Python {python['losses']}", flush=True)
    return ok


def spread(values, digits=None):
    """Median [min-max]; three significant digits unless `digits` decimals are asked for."""
    text = (lambda v: f"{v:.3g}") if digits is None else (lambda v: f"{v:.{digits}f}")
    return f"{text(statistics.median(values))} [{text(min(values))}-{text(max(values))}]"


def measure(sides, model, ranks, batch, warmup, steps, repeats, work_dir):
    variants = ["python", "cpp", "cpp-uninstrumented", "cpp-host-loader"]
    results = {variant: [] for variant in variants + ["python-same-threads"]}
    for repeat in range(repeats):
        shift = repeat % len(variants)
        order = variants[shift:] + variants[:shift]
        for variant in order:
            if variant == "python":
                results[variant].append(sides.python(model, ranks, batch, warmup, steps))
                continue
            out_dir = os.path.join(work_dir, f"{variant}-{repeat}")
            results[variant].append(sides.cpp(model, ranks, batch, warmup, steps, out_dir,
                                              variant != "cpp-uninstrumented",
                                              data_on_device=variant != "cpp-host-loader"))
            if variant == "cpp":  # Python on the threads the C++ run chose, right after it
                results["python-same-threads"].append(sides.python(
                    model, ranks, batch, warmup, steps, threads=results["cpp"][-1]["threads"]))
    python = [r["images_per_s"] for r in results["python"]]
    same = [r["images_per_s"] for r in results["python-same-threads"]]
    cpp = [r["images_per_s"] for r in results["cpp"]]
    bare = [r["images_per_s"] for r in results["cpp-uninstrumented"]]
    host = [r["images_per_s"] for r in results["cpp-host-loader"]]
    overheads = [100 * (1 - c / b) for c, b in zip(cpp, bare)]
    untimed = [100 * r["untimed_share"] for r in results["cpp"]]
    threads = f"{results['cpp'][0]['threads']}/{results['python'][0]['threads']}"
    print(f"| {model} | {ranks} | {batch} | {threads} | {spread(python)} | {spread(cpp)} | "
          f"{ratio(cpp, python)} | {spread(same)} | {ratio(cpp, same)} | {spread(bare)} | "
          f"{spread(overheads, 1)} | {spread(untimed, 1)} | {spread(host)} | "
          f"{ratio(host, python)} |", flush=True)
    if model != "gpt-tiny":
        return None

    def tokens(rates):
        return spread([LM_SEQ_LEN * rate for rate in rates])

    return (f"{model}, {ranks} rank(s), batch {batch}: tokens/s (samples/s x {LM_SEQ_LEN}) "
            f"Python {tokens(python)}, C++ {tokens(cpp)}, Python at C++'s threads "
            f"{tokens(same)}, C++ --instrument false {tokens(bare)}")


def ratio(numerators, denominators):
    """Ratio of the medians [range of the per-repeat ratios]."""
    ratios = [n / d for n, d in zip(numerators, denominators)]
    return (f"{statistics.median(numerators) / statistics.median(denominators):.2f} "
            f"[{min(ratios):.2f}-{max(ratios):.2f}]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated subset of " + ", ".join(MODELS))
    parser.add_argument("--quick", action="store_true",
                        help="one repeat of short runs at small batches (the ctest entry)")
    parser.add_argument("--loss-tolerance", type=float, default=1e-3)
    parser.add_argument("--no-cross-check", action="store_true",
                        help="timing only (when a --quick run of the same build checked)")
    args = parser.parse_args()

    models = args.models.split(",")
    unknown = [model for model in models if model not in MODELS]
    if unknown:
        parser.error(f"--models: unknown {', '.join(unknown)}; valid: {', '.join(MODELS)}")
    sides = Sides(os.path.abspath(args.build_dir), models)
    configs = [c for c in (QUICK_CONFIGS if args.quick else FULL_CONFIGS) if c[0] in models]
    ranks_list = [int(r) for r in args.ranks.split(",")]
    repeats = 1 if args.quick else args.repeats
    all_ok = True
    with tempfile.TemporaryDirectory(prefix="side-by-side-") as work_dir:
        for model in [] if args.no_cross_check else models:
            for ranks in ranks_list:
                check_dir = os.path.join(work_dir, f"check-{model}-{ranks}")
                os.makedirs(check_dir)
                all_ok &= cross_check(sides, model, ranks, CROSS_CHECK_BATCH[model], check_dir,
                                      args.loss_tolerance)
        started = time.time()
        lm_unit = (f"; gpt-tiny's img/s are windows of {LM_SEQ_LEN} tokens per s (tokens/s "
                   "below the table)" if "gpt-tiny" in models else "")
        print(f"\n{os.cpu_count()} cores; {repeats} interleaved repeat(s); median [min-max]; "
              "threads = intra-op threads per rank, C++ (its --threads 0 choice)/Python "
              f"(cores / local ranks){lm_unit}")
        print("| model | ranks | batch | threads | Python img/s | C++ img/s | C++/Python | "
              "Python at C++'s threads img/s | C++/Python same threads | "
              "C++ --instrument false img/s | instrumentation overhead % | untimed wall % | "
              "C++ host loader img/s | C++ host loader/Python |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        notes = []
        for ranks in ranks_list:
            for model, batch, warmup, steps in configs:
                run_dir = os.path.join(work_dir, f"{model}-{ranks}-{batch}")
                os.makedirs(run_dir)
                note = measure(sides, model, ranks, batch, warmup, steps, repeats, run_dir)
                if note:
                    notes.append(note)
        for note in notes:
            print(note)
        print(f"measured in {time.time() - started:.0f} s")
    if not args.no_cross_check:
        print("cross-check: " + ("passed" if all_ok else "FAILED"))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
