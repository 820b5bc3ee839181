"""Record a Python training run the way scalestudy's C++ workloads do.

A script imports this module to write its rank's run database, <out_dir>/rank<RANK>.sqlite,
in the schema of docs/run-database.md (version 1): the run row, provenance, per-step phase
times (data, forward, backward, optimizer, exposed communication when the script can tell),
epochs and the summary. `scalestudy ingest` then gives the script every report column:
throughput, speedup, efficiency, phase shares and the bottleneck class.

Standard library only (pandas and the rest of the package are not imported), so a
training node needs no pip install: put python/ on sys.path, or copy python/scalestudy_record.py
(the old single-file name) beside python/scalestudy/. Uses torch.cuda.nvtx for phase ranges and torch.distributed for the
global throughput when the script has imported torch; works without either.

    from scalestudy import record        # or: import scalestudy_record as record

    with record.Run(workload="python-ddp", config=vars(args), backend="gloo") as run:
        for epoch in range(1, epochs + 1):
            for i, (x, y) in enumerate(run.timed_batches(loader, epoch, warmup=i < 5)):
                ...
    # or, by hand:
            with run.step(epoch, samples=len(x), warmup=i < 5) as step:
                with step.phase("forward"):
                    loss = criterion(model(x), y)
                with step.phase("backward"):
                    loss.backward()
                with step.phase("optimizer"):
                    optimizer.step()
                step.loss = loss.item()
            run.epoch(epoch, lr=lr, train_loss=mean_loss, val_acc=acc,
                      samples_per_s=epoch_throughput, epoch_s=epoch_seconds)

With Run(..., target={"val_accuracy": args.target_val_accuracy}) (a study's `target:`,
passed as --target-val-accuracy), run.epoch() also records when global validation first
reaches the target: summary time_to_target_s (since the first step) and time_to_target_epoch.

The run id and directory come from SCALESTUDY_RUN_ID and SCALESTUDY_OUT_DIR (scalestudy
sets both for every rank); the rank from RANK, LOCAL_RANK and WORLD_SIZE. Leaving the
`with` block by an exception marks the run failed with the exception as its reason.
"""

import json
import os
import resource
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import datetime, timezone

from . import schema as _schema

SCHEMA_VERSION = 1

# The run database's tables: python/scalestudy/schema/run.sql, the one definition, which
# the C++ build embeds too (tests/python/schema_agreement_test.py).
SCHEMA_SQL = _schema.text(_schema.RUN)

# The columns this module writes, per table: every column of each table it writes, which
# import checks against the schema (a column added on one side only fails here and in
# tests/python/schema_agreement_test.py).
RUN_INSERT_COLUMNS = ("run_id", "workload", "rank", "local_rank", "world_size", "host",
                      "device", "backend", "config_json", "started_at", "status")
RUN_FINISH_COLUMNS = ("status", "failure_reason", "finished_at")
STEP_COLUMNS = ("global_step", "epoch", "warmup", "samples", "data_ms", "forward_ms",
                "backward_ms", "comm_exposed_ms", "optimizer_ms", "step_ms", "loss")
EPOCH_COLUMNS = ("epoch", "lr", "train_loss", "train_acc", "val_loss", "val_acc",
                 "samples_per_s", "epoch_s")
TELEMETRY_COLUMNS = ("t_s", "cpu_rss_bytes", "gpu_util_pct", "gpu_mem_used_bytes",
                     "gpu_power_w", "gpu_temp_c")
WRITTEN_COLUMNS = {
    "run": RUN_INSERT_COLUMNS + tuple(c for c in RUN_FINISH_COLUMNS
                                      if c not in RUN_INSERT_COLUMNS),
    "provenance": ("key", "value"),
    "steps": STEP_COLUMNS,
    "epochs": EPOCH_COLUMNS,
    "summary": ("name", "value"),
    "telemetry": TELEMETRY_COLUMNS,
}
_schema.check(_schema.RUN, WRITTEN_COLUMNS)


def _insert(table, columns, verb="INSERT"):
    return "%s INTO %s (%s) VALUES (%s)" % (verb, table, ", ".join(columns),
                                            ", ".join("?" * len(columns)))


PHASES = ("data", "forward", "backward", "comm_exposed", "optimizer")
STEP_BATCH = 128
ENV_PREFIXES = ("NCCL_", "GLOO_", "OMP_", "GOMP_", "OPENBLAS_", "CUDA_", "TORCH_")


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _torch_module(name):
    """torch.<name> when the script has imported torch, else None (never imports torch)."""
    torch = sys.modules.get("torch")
    return getattr(torch, name, None) if torch is not None else None


def _nvtx():
    cuda = _torch_module("cuda")
    if cuda is None or not cuda.is_available():
        return None
    return getattr(cuda, "nvtx", None)


def _parse_target(target):
    """(metric, value) from {"val_accuracy": 0.88} or {"val_loss": 0.4}; None for no
    target (None, {} or a value of 0, as the flags' default)."""
    given = {k: float(v) for k, v in (target or {}).items() if v}
    if not given:
        return None
    if len(given) != 1 or not set(given) <= {"val_accuracy", "val_loss"}:
        raise ValueError("target: expected {'val_accuracy': fraction} or {'val_loss': value},"
                         " got %r" % (target,))
    return next(iter(given.items()))


def _git_provenance():
    """git_commit and git_dirty of the repository the script lies in (its sys.argv[0]),
    as the C++ workloads record their build's; {} outside a git work tree or without git."""
    script = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c") else "."
    folder = os.path.dirname(os.path.abspath(script)) or "."
    try:
        commit = subprocess.run(["git", "-C", folder, "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=10)
        if commit.returncode != 0:
            return {}
        status = subprocess.run(["git", "-C", folder, "status", "--porcelain",
                                 "--untracked-files=no"], capture_output=True, text=True,
                                timeout=10)
    except (OSError, subprocess.SubprocessError):
        return {}
    entries = {"git_commit": commit.stdout.strip()}
    if status.returncode == 0:
        entries["git_dirty"] = "true" if status.stdout.strip() else "false"
    return entries


class Step:
    """One training step's phase times; use as `with run.step(...) as step`."""

    def __init__(self, epoch, samples, warmup, nvtx):
        self.epoch = epoch
        self.samples = samples
        self.warmup = warmup
        self.loss = None
        self.times_ms = dict.fromkeys(PHASES, 0.0)
        self._nvtx = nvtx

    @contextmanager
    def phase(self, name):
        """Times the block as phase `name` (one of PHASES); adds up when repeated."""
        if name not in self.times_ms:
            raise ValueError("unknown phase %r (one of %s)" % (name, ", ".join(PHASES)))
        if self._nvtx:
            self._nvtx.range_push(name)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.times_ms[name] += (time.perf_counter() - start) * 1000.0
            if self._nvtx:
                self._nvtx.range_pop()


class Run:
    """This rank's run database. Not thread-safe: call it from the training loop."""

    def __init__(self, workload, config=None, device="cpu", backend=None, out_dir=None,
                 run_id=None, target=None):
        """`target`: {"val_accuracy": 0.88} or {"val_loss": 0.4} (a study's `target:`,
        passed to the script as --target-val-accuracy / --target-val-loss): epoch() then
        records when global validation first reaches it (time_to_target_s, _epoch)."""
        env = os.environ
        self._target = _parse_target(target)
        self.rank = int(env.get("RANK", "0"))
        self.local_rank = int(env.get("LOCAL_RANK", "0"))
        self.world_size = int(env.get("WORLD_SIZE", "1"))
        self.run_id = run_id or env.get("SCALESTUDY_RUN_ID") or "adhoc-%d" % int(time.time())
        self.out_dir = out_dir or env.get("SCALESTUDY_OUT_DIR") or "."
        if backend is None:
            backend = "none" if self.world_size == 1 else ("nccl" if device != "cpu" else "gloo")
        os.makedirs(self.out_dir, exist_ok=True)
        self.path = os.path.join(self.out_dir, "rank%d.sqlite" % self.rank)
        for suffix in ("", "-wal", "-shm"):  # an earlier attempt's file of this rank
            if os.path.exists(self.path + suffix):
                os.remove(self.path + suffix)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._create_schema()
        config_json = json.dumps({str(k): str(v) for k, v in sorted((config or {}).items())})
        with self._transaction():
            self._db.execute(
                _insert("run", RUN_INSERT_COLUMNS),
                (self.run_id, workload, self.rank, self.local_rank, self.world_size,
                 socket.gethostname(), device, backend, config_json, utc_now(), "running"))
        self.add_provenance(self._provenance())
        self._nvtx = _nvtx()
        self._pending_steps = []
        self._measured_step_ms = []
        self._measured_samples = 0
        self._global_step = 0
        self._training_started = None  # the first step's start: time-to-target's clock
        self._target_reached = False
        self._finished = False
        if self._target:
            self.summary(**{"target_" + self._target[0]: self._target[1]})

    # ---- context manager: completed on success, failed on an exception -------------
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        if self._finished:
            return False
        if exc_type is None:
            self.completed()
        else:
            self.failed("%s: %s" % (exc_type.__name__, exc))
        return False

    @contextmanager
    def _transaction(self):
        self._db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _create_schema(self):
        # executescript: the file's comments may hold semicolons; one transaction.
        self._db.executescript("BEGIN;\n" + SCHEMA_SQL + "\nCOMMIT;")
        self._db.execute("PRAGMA user_version=%d" % SCHEMA_VERSION)

    def _provenance(self):
        entries = {
            "hostname": socket.gethostname(),
            "python_version": sys.version.split()[0],
            "recorder": "scalestudy.record",
        }
        entries.update(_git_provenance())
        torch = sys.modules.get("torch")
        if torch is not None:
            entries["libtorch_version"] = str(torch.__version__)
        for key, name in (("slurm_job_id", "SLURM_JOB_ID"),
                          ("slurm_array_task_id", "SLURM_ARRAY_TASK_ID"),
                          ("slurm_nodelist", "SLURM_JOB_NODELIST"),
                          ("slurm_version", "SCALESTUDY_SLURM_RELEASE"),
                          ("slurmrest_api", "SCALESTUDY_SLURMREST_API")):
            if name in os.environ:
                entries[key] = os.environ[name]
        for name, value in os.environ.items():
            if name.startswith(ENV_PREFIXES):
                entries["env." + name] = value
        return entries

    # ---- records ---------------------------------------------------------------------
    def add_provenance(self, entries):
        with self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO provenance (key, value) VALUES (?, ?)",
                                 [(str(k), str(v)) for k, v in entries.items()])

    @contextmanager
    def step(self, epoch, samples, warmup=False):
        """Times one training step (its wall time is the block's) and records it."""
        step = Step(epoch, samples, warmup, self._nvtx)
        start = time.perf_counter()
        if self._training_started is None:
            self._training_started = start
        yield step
        step_ms = (time.perf_counter() - start) * 1000.0
        self._global_step += 1
        self._pending_steps.append(
            (self._global_step, step.epoch, 1 if step.warmup else 0, int(step.samples))
            + tuple(step.times_ms[name] for name in PHASES) + (step_ms, step.loss))
        if not step.warmup:
            self._measured_step_ms.append(step_ms)
            self._measured_samples += int(step.samples)
        if len(self._pending_steps) >= STEP_BATCH:
            self.flush()

    def timed_batches(self, batches, epoch, warmup_steps=0):
        """Yields (step, batch) for each batch, with the wait for the batch timed as the
        data phase of its step: `for step, (x, y) in run.timed_batches(loader, epoch)`.
        Set step.samples inside the loop when the batch size varies."""
        iterator = iter(batches)
        index = 0
        while True:
            start = time.perf_counter()
            try:
                batch = next(iterator)
            except StopIteration:
                return
            data_ms = (time.perf_counter() - start) * 1000.0
            first = batch[0] if isinstance(batch, (tuple, list)) else batch
            samples = len(first) if hasattr(first, "__len__") else 1
            with self.step(epoch, samples, warmup=index < warmup_steps) as step:
                step.times_ms["data"] = data_ms
                yield step, batch
            index += 1

    def flush(self):
        if not self._pending_steps:
            return
        with self._transaction():
            self._db.executemany(_insert("steps", STEP_COLUMNS), self._pending_steps)
        self._pending_steps = []

    def epoch(self, epoch, lr, train_loss, samples_per_s, epoch_s, train_acc=None,
              val_loss=None, val_acc=None):
        """One epoch's global figures (the same on every rank)."""
        self.flush()
        with self._transaction():
            self._db.execute(
                _insert("epochs", EPOCH_COLUMNS, "INSERT OR REPLACE"),
                (epoch, lr, train_loss, train_acc, val_loss, val_acc, samples_per_s, epoch_s))
        self._note_target(epoch, val_loss, val_acc)

    def _note_target(self, epoch, val_loss, val_acc):
        """The first epoch whose validation reaches the target, and the seconds from the
        first step to now (after that epoch's validation)."""
        if not self._target or self._target_reached or self._training_started is None:
            return
        metric, value = self._target
        reached = (val_acc is not None and val_acc >= value if metric == "val_accuracy"
                   else val_loss is not None and val_loss <= value)
        if reached:
            self._target_reached = True
            self.summary(time_to_target_s=time.perf_counter() - self._training_started,
                         time_to_target_epoch=epoch)

    def summary(self, **values):
        """Run-level numbers by docs/run-database.md name (final_val_acc=0.91, ...)."""
        with self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO summary (name, value) VALUES (?, ?)",
                                 [(name, float(value)) for name, value in values.items()])

    def telemetry(self, t_s, cpu_rss_bytes=None, gpu_util_pct=None, gpu_mem_used_bytes=None,
                  gpu_power_w=None, gpu_temp_c=None):
        """One telemetry sample, `t_s` seconds since the run started (the C++ workloads'
        background sampler takes one a second; a script samples when it likes)."""
        with self._transaction():
            self._db.execute(_insert("telemetry", TELEMETRY_COLUMNS),
                             (float(t_s), cpu_rss_bytes, gpu_util_pct, gpu_mem_used_bytes,
                              gpu_power_w, gpu_temp_c))

    def _throughput_summary(self):
        """samples_per_s (global: all ranks' measured samples over the slowest rank's
        measured time) and step_ms_median, from the recorded steps."""
        if not self._measured_step_ms:
            return {}
        samples = float(self._measured_samples)
        seconds = sum(self._measured_step_ms) / 1000.0
        dist = _torch_module("distributed")
        if dist is not None and dist.is_available() and dist.is_initialized():
            torch = sys.modules["torch"]
            totals = torch.tensor([samples], dtype=torch.float64)
            slowest = torch.tensor([seconds], dtype=torch.float64)
            dist.all_reduce(totals, op=dist.ReduceOp.SUM)
            dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
            samples, seconds = float(totals.item()), float(slowest.item())
        else:
            samples *= self.world_size  # every rank assumed to process as many samples
        return {"samples_per_s": samples / seconds if seconds > 0 else 0.0,
                "step_ms_median": statistics.median(self._measured_step_ms)}

    @staticmethod
    def _memory_summary():
        """cpu_rss_peak_bytes of this process (Linux reports ru_maxrss in KiB)."""
        return {"cpu_rss_peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}

    def completed(self):
        """Ends the run as completed (all ranks must call it: it may all-reduce), adding
        samples_per_s, step_ms_median and cpu_rss_peak_bytes unless already given."""
        self.flush()
        computed = dict(self._throughput_summary(), **self._memory_summary())
        existing = {name for (name,) in self._db.execute("SELECT name FROM summary")}
        self.summary(**{k: v for k, v in computed.items() if k not in existing})
        self._finish("completed", None)

    def failed(self, reason):
        try:
            self.flush()
        finally:
            self._finish("failed", reason)

    def _finish(self, status, reason):
        with self._transaction():
            self._db.execute("UPDATE run SET %s" % ", ".join(c + " = ?" for c in RUN_FINISH_COLUMNS),
                             (status, reason, utc_now()))
        self._finished = True
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()
