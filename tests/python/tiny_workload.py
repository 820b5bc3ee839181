"""A workload for the Python package's tests: no model, only the recording module
(scalestudy.record, standard library), so that a real study runs through the CLI, the local
executor and ingest in seconds. Each step sleeps through its phases (about 12 ms, with a
communication wait that grows with the world size), each epoch records global figures and
a telemetry sample. Flags as the study gives them (--epochs, --steps-per-epoch,
--batch-size, ...); the run id, directory and rank come from scalestudy's environment."""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
from scalestudy import record  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--steps-per-epoch", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--compute-ms", type=float, default=8.0)
    parser.add_argument("--target-val-accuracy", type=float, default=0.0)
    args, _ = parser.parse_known_args()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    started = time.perf_counter()
    with record.Run(workload="tiny", config=vars(args),
                    target={"val_accuracy": args.target_val_accuracy}) as run:
        for epoch in range(1, args.epochs + 1):
            epoch_start = time.perf_counter()
            for index in range(args.steps_per_epoch):
                with run.step(epoch, samples=args.batch_size,
                              warmup=epoch == 1 and index == 0) as step:
                    with step.phase("data"):
                        time.sleep(0.001)
                    with step.phase("forward"):
                        time.sleep(args.compute_ms / 3000.0)
                    with step.phase("backward"):
                        time.sleep(args.compute_ms * 2 / 3000.0)
                    if world > 1:  # someone to wait for
                        with step.phase("comm_exposed"):
                            time.sleep(0.002 * (world - 1))
                    with step.phase("optimizer"):
                        time.sleep(0.0005)
                    step.loss = 2.0 / (epoch + index / args.steps_per_epoch)
            epoch_s = time.perf_counter() - epoch_start
            run.epoch(epoch, lr=args.lr, train_loss=2.0 / epoch, train_acc=0.5 + 0.1 * epoch,
                      val_loss=2.2 / epoch, val_acc=0.45 + 0.1 * epoch,
                      samples_per_s=args.batch_size * world * args.steps_per_epoch / epoch_s,
                      epoch_s=epoch_s)
            run.telemetry(time.perf_counter() - started, cpu_rss_bytes=50_000_000 + epoch)
        run.summary(final_val_acc=0.45 + 0.1 * args.epochs, final_val_loss=2.2 / args.epochs)


if __name__ == "__main__":
    main()
