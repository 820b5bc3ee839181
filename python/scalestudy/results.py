"""A results dir's studies as pandas DataFrames, read straight from the databases.

    import scalestudy
    results = scalestudy.open("results")
    study = results.study("quickstart")          # or "quickstart@b", or campaign="b"
    study.points()                               # the report's points, one row each
    study.runs(); study.ranks(); study.epochs(); study.steps(); study.telemetry()

Every table opens the study database (<results>/<study>[@<campaign>].sqlite) and the
runs' rank databases (<out_dir>/rank<R>.sqlite) read-only; column names and units are the
JSON report's (docs/report-json.md): `_ms`, `_s`, `_bytes`, `samples_per_s`, fractions
0..1. What takes analysis (points, efficiency, the report, history) comes from the CLI's
JSON (scalestudy.cli), never from a second implementation here. Not thread-safe.
"""

import contextlib
import json
import os
import re
import sqlite3
import urllib.parse
import warnings

import pandas as pd

from . import cli as _cli
from . import schema as _schema
from .record import EPOCH_COLUMNS, STEP_COLUMNS, TELEMETRY_COLUMNS

# The columns read whole from each table, checked against the schema at import: a column
# added to the schema (or here) alone fails the import and tests/python. The steps', epochs'
# and telemetry's are every column the recording module writes.
RUN_COLUMNS = ("run_id", "workload", "rank", "local_rank", "world_size", "host", "device",
               "backend", "config_json", "started_at", "finished_at", "status",
               "failure_reason")
KEYS = ("run_id", "rank")
READ_RUN_COLUMNS = {"run": RUN_COLUMNS, "steps": STEP_COLUMNS, "epochs": EPOCH_COLUMNS,
                    "telemetry": TELEMETRY_COLUMNS}
READ_MEASUREMENT_COLUMNS = {"m_run": RUN_COLUMNS, "m_steps": KEYS + STEP_COLUMNS,
                            "m_epochs": KEYS + EPOCH_COLUMNS,
                            "m_telemetry": KEYS + TELEMETRY_COLUMNS,
                            "m_summary": KEYS + ("name", "value"),
                            "m_provenance": KEYS + ("key", "value")}
_schema.check(_schema.RUN, READ_RUN_COLUMNS)
_schema.check(_schema.MEASUREMENTS, READ_MEASUREMENT_COLUMNS)

# State columns runs() reads (a subset: claim tokens and JSON blobs stay out).
STATE_RUN_COLUMNS = ("run_id", "repeat", "nodes", "tasks_per_node", "world_size",
                     "gpus_per_node", "global_batch", "per_gpu_batch", "varied_json",
                     "params_json", "spec_json", "profiled", "state", "attempts", "scheduler",
                     "job_id", "reason", "submitted_at", "started_at", "finished_at", "out_dir",
                     "failure_class", "failure_evidence")
_missing_state = [c for c in STATE_RUN_COLUMNS
                  if c not in _schema.tables(_schema.STUDY_STATE)["runs"]]
if _missing_state:
    raise RuntimeError("study_state.sql: runs lacks " + ", ".join(_missing_state))

_DB_NAME = re.compile(r"^(?P<study>[^@/]+?)(?:@(?P<campaign>[^@/]+))?\.sqlite$")
DEFAULT_CAMPAIGN = "default"


@contextlib.contextmanager
def _connect_read_only(path):
    """The database at `path`, opened read-only (never created), closed on leaving."""
    if not os.path.isfile(path):
        raise FileNotFoundError("no database " + path)
    db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(path)),
                         uri=True)
    try:
        yield db
    finally:
        db.close()


def _has_table(db, table):
    return db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                      (table,)).fetchone()[0] > 0


_TYPES = [types for name in (_schema.RUN, _schema.MEASUREMENTS, _schema.STUDY_STATE)
          for types in _schema.column_types(name).values()]
# Columns numeric in every table that has them (m_summary's value is, m_provenance's not).
_NUMERIC = ({c for types in _TYPES for c, kind in types.items() if kind in ("REAL", "INTEGER")}
            - {c for types in _TYPES for c, kind in types.items() if kind == "TEXT"})


def _frame(db, sql, params=()):
    """The query's rows; columns the schema declares REAL or INTEGER are numeric (NULL:
    NaN), whatever the rows hold."""
    cursor = db.execute(sql, params)
    names = [d[0] for d in cursor.description]
    frame = pd.DataFrame.from_records(cursor.fetchall(), columns=names)
    for column in names:
        if column in _NUMERIC and frame[column].dtype == object:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


class Results:
    """A results dir (the folder of <study>.sqlite files; `scalestudy --results-dir`)."""

    def __init__(self, results_dir="results", cli=None):
        self.results_dir = os.path.abspath(results_dir)
        self.cli = cli
        if not os.path.isdir(self.results_dir):
            raise FileNotFoundError("no results dir " + self.results_dir)

    def studies(self):
        """DataFrame: study, campaign, database, one row per study database, by name."""
        rows = []
        for name in sorted(os.listdir(self.results_dir)):
            match = _DB_NAME.match(name)
            if match:
                rows.append((match.group("study"), match.group("campaign") or DEFAULT_CAMPAIGN,
                             os.path.join(self.results_dir, name)))
        return pd.DataFrame(rows, columns=["study", "campaign", "database"])

    def study(self, name, campaign=None):
        """The study `name` ("quickstart", or "quickstart@b" for campaign b)."""
        if "@" in name and campaign is None:
            name, campaign = name.split("@", 1)
        return Study(self, name, campaign or DEFAULT_CAMPAIGN)

    def campaigns(self, name):
        """The Study of each campaign of `name`, default first, then by name."""
        found = self.studies()
        found = found[found.study == name]
        order = sorted(found.campaign, key=lambda c: (c != DEFAULT_CAMPAIGN, c))
        return [Study(self, name, c) for c in order]

    def __repr__(self):
        return "scalestudy.Results(%r)" % self.results_dir


class Study:
    """One campaign of one study: its database and its runs' rank databases."""

    def __init__(self, results, name, campaign=DEFAULT_CAMPAIGN):
        self.results = results
        self.name = name
        self.campaign = campaign
        file_name = name + ("" if campaign == DEFAULT_CAMPAIGN else "@" + campaign) + ".sqlite"
        # A name the results dir's listing reads back as this study and campaign: no path
        # ("../x" would open a file outside the results dir), no "@" inside a part.
        match = _DB_NAME.match(file_name)
        if not match or (match.group("study"), match.group("campaign") or DEFAULT_CAMPAIGN) != (
                name, campaign):
            raise ValueError("%r (campaign %r) is not a study name: a name and a campaign are "
                             "file names without '/' or '@'" % (name, campaign))
        self.database = os.path.join(results.results_dir, file_name)
        if not os.path.isfile(self.database):
            raise FileNotFoundError("no study database %s (studies there: %s)" % (
                self.database, ", ".join(sorted(set(results.studies().study))) or "none"))
        with _connect_read_only(self.database) as db:
            try:
                is_study = _has_table(db, "runs")
            except sqlite3.DatabaseError as error:
                raise ValueError("%s is not a study database: %s" % (self.database, error))
        if not is_study:
            raise ValueError("%s is not a study database: it has no runs table (made by "
                             "scalestudy submit or run)" % self.database)

    @property
    def label(self):
        """What the CLI calls it: "quickstart", or "quickstart@b" for a campaign."""
        return self.name if self.campaign == DEFAULT_CAMPAIGN else self.name + "@" + self.campaign

    def __repr__(self):
        return "scalestudy.Study(%r)" % self.label

    # ---- the CLI's JSON ---------------------------------------------------------------
    def _cli_json(self, args, ok=(0,)):
        return _cli.run_json(list(args) + ["--results-dir", self.results.results_dir],
                             cli=self.results.cli, ok=ok)

    def report(self, *options):
        """`scalestudy report STUDY --format json` (docs/report-json.md), parsed; extra
        options as given ("--baseline", "world_size=2"). Like the CLI, it ingests first
        (add "--no-ingest" not to); exit 1 (some runs failed) still returns the report."""
        return self._cli_json(["report", self.label, "--format", "json", "--no-plots"]
                              + list(options), ok=(0, 1))

    def history(self, *options):
        """`scalestudy history STUDY --format json` (docs/history.md), parsed: every
        campaign of the study. Exit 1 (an open regression with --check) still returns it."""
        return self._cli_json(["history", self.name, "--format", "json"] + list(options),
                              ok=(0, 1))

    # ---- DataFrames -------------------------------------------------------------------
    def points(self, *report_options):
        """The report's points, one row each, in its order: world_size,
        throughput_samples_per_s (median), speedup, efficiency, config_label, system, nodes,
        gpus, global_batch, per_gpu_batch, is_baseline, runs_measured, runs_failed, run_ids,
        throughput_samples_per_s_min, _max, _ci95 (half width), step_ms and epoch_s
        (medians), final_val_acc, bottleneck, device_hours_per_epoch, time_to_target_s, mfu,
        the memory peaks and phases_pct_*. The figures are the CLI's (report --format
        json)."""
        return points_frame(self.report(*report_options))

    def runs(self):
        """One row per planned run of this campaign: the study database's state (run_id,
        repeat, nodes, world_size, batches, state, attempts, scheduler, times, out_dir, and
        failure_class with failure_evidence: why its latest attempt failed, None when it
        did not; docs/failures.md)
        with its configuration (config: the varied keys; params; system) and, once
        ingested, the run's figures as the report takes them: throughput_samples_per_s
        (the lowest rank's global samples_per_s), step_ms (median over ranks of each
        rank's median step), epoch_s (median over epochs), final_val_acc, and the peaks
        over ranks cpu_rss_peak_bytes, gpu_peak_bytes, gpu_reserved_peak_bytes;
        time_to_target_s; git_commit."""
        with _connect_read_only(self.database) as db:
            present = [r[1] for r in db.execute("PRAGMA table_info(runs)")]
            current = "planned = 1" if "planned" in present else "1"
            # A database of an earlier scalestudy lacks the columns added since (read-only
            # here: the next submit or status adds them).
            selected = [c if c in present else "NULL AS " + c for c in STATE_RUN_COLUMNS]
            runs = _frame(db, "SELECT %s FROM runs WHERE %s ORDER BY world_size, repeat, run_id"
                          % (", ".join(selected), current))
            summary = (_frame(db, "SELECT run_id, rank, name, value FROM m_summary")
                       if _has_table(db, "m_summary") else pd.DataFrame(
                           columns=["run_id", "rank", "name", "value"]))
            ingest = (_frame(db, "SELECT run_id, status AS ingest_status FROM m_ingest")
                      if _has_table(db, "m_ingest") else pd.DataFrame(
                          columns=["run_id", "ingest_status"]))
            epochs = (_frame(db, "SELECT e.run_id, e.epoch_s, e.val_acc FROM m_epochs e WHERE"
                                 " e.rank = (SELECT min(rank) FROM m_epochs f WHERE"
                                 " f.run_id = e.run_id) ORDER BY e.run_id, e.epoch")
                      if _has_table(db, "m_epochs") else pd.DataFrame(
                          columns=["run_id", "epoch_s", "val_acc"]))
            commits = (_frame(db, "SELECT run_id, value AS git_commit FROM m_provenance p"
                                  " WHERE key = 'git_commit' AND rank = (SELECT min(rank)"
                                  " FROM m_provenance q WHERE q.run_id = p.run_id AND"
                                  " q.key = 'git_commit')")
                       if _has_table(db, "m_provenance") else pd.DataFrame(
                           columns=["run_id", "git_commit"]))
        runs.insert(1, "campaign", self.campaign)
        runs["out_dir"] = [self._absolute(p) for p in runs.out_dir]
        runs["config"] = [json.loads(v) for v in runs.varied_json]
        runs["params"] = [json.loads(v) for v in runs.params_json]
        runs["system"] = [_system_label(json.loads(v)) for v in runs.spec_json]
        runs = runs.drop(columns=["varied_json", "params_json", "spec_json"])
        runs["profiled"] = runs.profiled.astype(bool)
        runs = runs.merge(ingest, on="run_id", how="left")
        runs = runs.merge(_run_figures(summary, epochs), on="run_id", how="left")
        return runs.merge(commits, on="run_id", how="left")

    def ranks(self):
        """One row per rank of every ingested run: run_id, rank, the run row (workload,
        local_rank, world_size, host, device, backend, status, started_at, finished_at,
        failure_reason) and every summary figure of docs/run-database.md as a column
        (samples_per_s, step_ms_median, cpu_rss_peak_bytes, ...; NaN where a rank did not
        record it)."""
        with _connect_read_only(self.database) as db:
            if not _has_table(db, "m_run"):
                return pd.DataFrame(columns=list(RUN_COLUMNS))
            ranks = _frame(db, "SELECT %s FROM m_run ORDER BY run_id, rank"
                           % ", ".join(RUN_COLUMNS))
            summary = _frame(db, "SELECT run_id, rank, name, value FROM m_summary")
        ranks = ranks.drop(columns=["config_json"])
        if len(summary):
            wide = summary.pivot_table(index=["run_id", "rank"], columns="name",
                                       values="value", aggfunc="first").reset_index()
            wide.columns.name = None
            ranks = ranks.merge(wide, on=["run_id", "rank"], how="left")
        return ranks

    def epochs(self):
        """One row per epoch and rank of every ingested run (the figures are global, the
        same on every rank): run_id, rank, epoch (1-based), lr, train_loss, train_acc,
        val_loss, val_acc (fractions), samples_per_s, epoch_s."""
        return self._measurement_table("m_epochs", KEYS + EPOCH_COLUMNS, "run_id, rank, epoch")

    def telemetry(self):
        """The ranks' telemetry samples: run_id, rank, t_s (since the run started),
        cpu_rss_bytes, gpu_util_pct, gpu_mem_used_bytes, gpu_power_w, gpu_temp_c (NaN on
        CPU runs)."""
        return self._measurement_table("m_telemetry", KEYS + TELEMETRY_COLUMNS,
                                       "run_id, rank, t_s")

    def steps(self, include_warmup=True):
        """Every step of every rank of every completed run: run_id, rank, global_step,
        epoch, warmup (bool), samples, data_ms, forward_ms, backward_ms, comm_exposed_ms,
        optimizer_ms, step_ms, loss. Read from the runs' rank databases (ingest keeps only
        per-phase aggregates unless `ingest --steps`); from the study database's m_steps
        for a run whose directory is gone. A run some of whose rank databases are missing
        is read from m_steps too, with a warning (RuntimeWarning) naming the ranks, as is
        a run whose steps are in neither."""
        frames = []
        with _connect_read_only(self.database) as db:
            ingested = ([r[0] for r in db.execute(
                "SELECT run_id FROM m_ingest WHERE status = 'ingested' ORDER BY run_id")]
                if _has_table(db, "m_ingest") else [])
            out_dirs = dict(db.execute("SELECT run_id, out_dir FROM runs"))
            world = dict(db.execute("SELECT run_id, max(world_size) FROM m_run GROUP BY run_id")
                         ) if _has_table(db, "m_run") else {}
            for run_id in ingested:
                run_dir = self._absolute(out_dirs.get(run_id, ""))
                paths = [os.path.join(run_dir, "rank%d.sqlite" % r)
                         for r in range(int(world.get(run_id, 0)))]
                missing = [r for r, p in enumerate(paths) if not os.path.isfile(p)]
                if paths and not missing:
                    for rank, path in enumerate(paths):
                        with _connect_read_only(path) as rank_db:
                            frame = _frame(rank_db, "SELECT %s FROM steps ORDER BY global_step"
                                           % ", ".join(STEP_COLUMNS))
                        frame.insert(0, "rank", rank)
                        frame.insert(0, "run_id", run_id)
                        frames.append(frame)
                    continue
                kept = (_frame(db, "SELECT %s FROM m_steps WHERE run_id = ? ORDER BY rank, "
                                   "global_step" % ", ".join(KEYS + STEP_COLUMNS), (run_id,))
                        if _has_table(db, "m_steps") else pd.DataFrame())
                frames.append(kept)
                if len(missing) < len(paths) or not len(kept):
                    warnings.warn(
                        "run %s: %s; %s" % (
                            run_id,
                            "no rank database in %s" % run_dir if len(missing) == len(paths)
                            else "rank database(s) of rank(s) %s of %d missing in %s" % (
                                ", ".join(map(str, missing)), len(paths), run_dir),
                            "its steps from the study database (ingest --steps)" if len(kept)
                            else "its steps are nowhere (ingest --steps keeps them)"),
                        RuntimeWarning, stacklevel=2)
        columns = list(KEYS + STEP_COLUMNS)
        steps = (pd.concat([f for f in frames if len(f)], ignore_index=True)
                 if any(len(f) for f in frames) else pd.DataFrame(columns=columns))
        steps["warmup"] = steps.warmup.astype(bool)
        if not include_warmup:
            steps = steps[~steps.warmup].reset_index(drop=True)
        return steps

    def _measurement_table(self, table, columns, order):
        with _connect_read_only(self.database) as db:
            if not _has_table(db, table):
                return pd.DataFrame(columns=list(columns))
            return _frame(db, "SELECT %s FROM %s ORDER BY %s" % (", ".join(columns), table, order))

    def _absolute(self, stored):
        return stored if os.path.isabs(stored) else os.path.join(self.results.results_dir, stored)

    # ---- plots and export -------------------------------------------------------------
    def plot_efficiency(self, ax=None, path=None, report=None):
        """The CLI's efficiency plot (efficiency against ranks per configuration, the ideal
        at 1) on a matplotlib Axes; saved to `path` when given. Returns the Axes."""
        from . import plots
        return plots.plot_efficiency(report or self.report(), ax=ax, path=path)

    def plot_throughput(self, ax=None, path=None, report=None):
        """The CLI's throughput plot (samples/s against ranks, log-log, the ideal line from
        the baseline) on a matplotlib Axes; saved to `path` when given."""
        from . import plots
        return plots.plot_throughput(report or self.report(), ax=ax, path=path)

    def to_mlflow(self, tracking_uri, experiment=None):
        """Exports this campaign's runs to an MLflow tracking server (scalestudy.mlflow_export);
        returns {"experiment_id", "created", "updated"}."""
        from . import mlflow_export
        return mlflow_export.export_study(self, tracking_uri, experiment=experiment)


def _system_label(spec):
    system = spec.get("system")
    if isinstance(system, dict):
        return system.get("label") or system.get("id")
    return system or None


def _median(values):
    values = sorted(v for v in values if v is not None and v == v)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def _run_figures(summary, epochs):
    """Per run, the figures the report takes from the ranks (run_measurements.cpp)."""
    rows = []
    for run_id in sorted(set(summary.run_id) | set(epochs.run_id)):
        ranks = summary[summary.run_id == run_id]
        run_epochs = epochs[epochs.run_id == run_id]

        def lowest_rank(name):
            rows_named = ranks[ranks.name == name].sort_values("rank")
            return float(rows_named.value.iloc[0]) if len(rows_named) else None

        def peak(name):
            rows_named = ranks[ranks.name == name]
            return float(rows_named.value.max()) if len(rows_named) else None

        final_val_acc = lowest_rank("final_val_acc")
        if final_val_acc is None and run_epochs.val_acc.notna().any():
            final_val_acc = float(run_epochs.val_acc.dropna().iloc[-1])
        throughput = lowest_rank("samples_per_s")
        rows.append({
            "run_id": run_id,
            "throughput_samples_per_s": throughput,
            "step_ms": _median(ranks[ranks.name == "step_ms_median"].value.tolist()),
            "epoch_s": _median(run_epochs.epoch_s.tolist()),
            "final_val_acc": final_val_acc,
            "cpu_rss_peak_bytes": peak("cpu_rss_peak_bytes"),
            "gpu_peak_bytes": peak("gpu_mem_peak_bytes"),
            "gpu_reserved_peak_bytes": peak("gpu_mem_reserved_peak_bytes"),
            "time_to_target_s": lowest_rank("time_to_target_s"),
        })
    columns = ["run_id", "throughput_samples_per_s", "step_ms", "epoch_s", "final_val_acc",
               "cpu_rss_peak_bytes", "gpu_peak_bytes", "gpu_reserved_peak_bytes",
               "time_to_target_s"]
    frame = pd.DataFrame(rows, columns=columns)
    for column in columns[1:]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def points_frame(report):
    """The report JSON's points as a DataFrame (see Study.points)."""
    rows = []
    for point in report.get("points", []):
        throughput = point.get("throughput_samples_per_s") or {}
        ceilings = point.get("ceilings") or {}
        memory = point.get("memory") or {}
        target = point.get("time_to_target") or {}
        row = {
            "world_size": point.get("world_size"),
            "throughput_samples_per_s": throughput.get("median"),
            "speedup": point.get("speedup"),
            "efficiency": point.get("efficiency"),
            "config_label": point.get("config_label"),
            "system": point.get("system"),
            "nodes": point.get("nodes"),
            "gpus": point.get("gpus"),
            "global_batch": point.get("global_batch"),
            "per_gpu_batch": point.get("per_gpu_batch"),
            "is_baseline": point.get("is_baseline"),
            "runs_measured": (point.get("runs") or {}).get("measured"),
            "runs_failed": (point.get("runs") or {}).get("failed"),
            "run_ids": list((point.get("runs") or {}).get("run_ids") or []),
            "throughput_samples_per_s_min": throughput.get("min"),
            "throughput_samples_per_s_max": throughput.get("max"),
            "throughput_samples_per_s_ci95": throughput.get("ci95_half_width"),
            "step_ms": (point.get("step_ms") or {}).get("median"),
            "epoch_s": (point.get("epoch_s") or {}).get("median"),
            "final_val_acc": point.get("final_val_acc"),
            "bottleneck": point.get("bottleneck"),
            "device_hours_per_epoch": point.get("device_hours_per_epoch"),
            "time_to_target_s": target.get("time_s"),
            "mfu": ceilings.get("mfu"),
            "cpu_rss_peak_bytes": memory.get("cpu_rss_peak_bytes"),
            "gpu_peak_bytes": memory.get("gpu_peak_bytes"),
            "gpu_reserved_peak_bytes": memory.get("gpu_reserved_peak_bytes"),
        }
        for phase, share in (point.get("phases_pct") or {}).items():
            row["phases_pct_" + phase] = share
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in frame.columns:
        if column not in ("config_label", "system", "run_ids", "bottleneck", "is_baseline"):
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame
