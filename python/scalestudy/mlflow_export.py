"""A study's runs as MLflow runs, on any tracking server (`mlflow server`, Databricks,
a file store), through MLflow's client.

One MLflow experiment per study, named after it (`experiment` to choose another); each
scalestudy run of each exported campaign becomes one MLflow run, named
"<config> N=<ranks> r<repeat> @<campaign>", with
  params   the run's workload parameters (as the study resolved them), its scale (nodes,
           world_size, tasks_per_node, gpus_per_node, global_batch, per_gpu_batch,
           repeat), system and config_label;
  metrics  the run's throughput_samples_per_s, step_ms, epoch_s, final_val_acc,
           cpu_rss_peak_bytes, gpu_peak_bytes, gpu_reserved_peak_bytes, time_to_target_s
           (as Study.runs() reads them) and its point's efficiency, speedup and mfu (the
           report's); per epoch (MLflow step = epoch) epoch.samples_per_s, epoch.epoch_s,
           epoch.train_loss, epoch.train_acc, epoch.val_loss, epoch.val_acc, epoch.lr;
  tags     scalestudy.run_id, scalestudy.study, scalestudy.campaign, scalestudy.system,
           scalestudy.state, scalestudy.config_label, git commit (scalestudy.git_commit
           and mlflow.source.git.commit).
A run is found again by its tags scalestudy.run_id and scalestudy.campaign: exporting
again updates it (new metric values, tags, status) and never adds a second run; a metric
whose value at its step is the one MLflow shows there is not logged again, and a parameter
keeps its first value (MLflow parameters are immutable). A value that changed (efficiency
0.93 with one repeat, 0.88 with all) is logged at its step with a timestamp after every one
logged before: MLflow shows, per step, the value of the latest timestamp (and breaks a tie
by the larger value, which kept 0.93 when both had the run's start as timestamp).

Command line (for the CLI-only user; docs/python.md):
    python -m scalestudy export-mlflow STUDY[@CAMPAIGN] TRACKING_URI [--results-dir DIR]
                                      [--experiment NAME]
"""

import datetime
import math
import time

# MLflow's log_batch limits per call.
_MAX_METRICS, _MAX_PARAMS, _MAX_TAGS = 1000, 100, 100
_PARAM_VALUE_LIMIT = 6000

RUN_METRICS = ("throughput_samples_per_s", "step_ms", "epoch_s", "final_val_acc",
               "cpu_rss_peak_bytes", "gpu_peak_bytes", "gpu_reserved_peak_bytes",
               "time_to_target_s")
POINT_METRICS = ("efficiency", "speedup", "mfu")
EPOCH_METRICS = ("samples_per_s", "epoch_s", "train_loss", "train_acc", "val_loss", "val_acc",
                 "lr")
SCALE_PARAMS = ("nodes", "world_size", "tasks_per_node", "gpus_per_node", "global_batch",
                "per_gpu_batch", "repeat")
FINISHED_STATES = {"COMPLETED": "FINISHED", "FAILED": "FAILED", "TIMEOUT": "FAILED",
                   "PREEMPTED": "FAILED", "NODE_FAIL": "FAILED", "OUT_OF_MEMORY": "FAILED",
                   "CANCELLED": "KILLED"}


def _ms(iso_time):
    """ISO-8601 UTC ("2026-11-28T10:00:00.123Z" or without zone) as Unix milliseconds."""
    if not isinstance(iso_time, str) or not iso_time:
        return None
    text = iso_time.replace("Z", "+00:00")
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp() * 1000)


def _number(value):
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _point_figures(report):
    """{run_id: {"efficiency", "speedup", "mfu", "config_label"}} from the report's points."""
    figures = {}
    for point in report.get("points", []):
        values = {"efficiency": point.get("efficiency"), "speedup": point.get("speedup"),
                  "mfu": (point.get("ceilings") or {}).get("mfu"),
                  "config_label": point.get("config_label")}
        for run_id in (point.get("runs") or {}).get("run_ids") or []:
            figures[run_id] = values
    return figures


def _chunks(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _existing_runs(client, experiment_id):
    """{(campaign, run_id): MLflow run} of the experiment's runs exported before."""
    found, token = {}, None
    while True:
        page = client.search_runs([experiment_id], filter_string="tags.`scalestudy.run_id` != ''",
                                  max_results=1000, page_token=token)
        for run in page:
            tags = run.data.tags
            found[(tags.get("scalestudy.campaign"), tags.get("scalestudy.run_id"))] = run
        token = page.token
        if not token:
            return found


def _changed_metrics(client, run_uuid, metrics, logged_names, now_ms):
    """The (name, value, step, timestamp) of `metrics` not yet logged at their step, and of
    those whose value differs from the one MLflow shows there (per step, the value of the
    latest timestamp, a tie broken by the larger value), these timestamped after every value
    of their name logged before, so that MLflow shows them from now on."""
    shown, last_ms = {}, {}
    for name in {m[0] for m in metrics} & logged_names:
        for logged in client.get_metric_history(run_uuid, name):
            key = (name, logged.step)
            shown[key] = max(shown.get(key, (logged.timestamp, logged.value)),
                             (logged.timestamp, logged.value))
            last_ms[name] = max(last_ms.get(name, logged.timestamp), logged.timestamp)
    changed = []
    for name, value, step, timestamp in metrics:
        if (name, step) not in shown:
            changed.append((name, value, step, timestamp))
        elif shown[(name, step)][1] != value:
            changed.append((name, value, step, max(now_ms, last_ms[name] + 1)))
    return changed


def _experiment(client, name):
    experiment = client.get_experiment_by_name(name)
    if experiment is None:
        return client.create_experiment(name, tags={"scalestudy.study": name})
    if experiment.lifecycle_stage == "deleted":
        client.restore_experiment(experiment.experiment_id)
    return experiment.experiment_id


def export_study(study, tracking_uri, experiment=None, client=None):
    """Exports one campaign (a scalestudy.results.Study) to the tracking server at
    `tracking_uri`; returns {"experiment_id", "experiment", "created", "updated"}."""
    from mlflow.entities import Metric, Param, RunTag
    from mlflow.tracking import MlflowClient

    client = client or MlflowClient(tracking_uri=tracking_uri)
    experiment = experiment or study.name
    experiment_id = _experiment(client, experiment)
    report = study.report()  # ingests first, like `scalestudy report`
    points = _point_figures(report)
    runs = study.runs()
    runs = runs[~runs.profiled]
    epochs = study.epochs()
    if len(epochs):
        epochs = epochs[epochs["rank"] == epochs.groupby("run_id")["rank"].transform("min")]
    existing = _existing_runs(client, experiment_id)
    created = updated = 0
    now_ms = int(time.time() * 1000)
    for run in runs.to_dict("records"):
        point = points.get(run["run_id"], {})
        config_label = point.get("config_label") or " ".join(
            "%s=%s" % kv for kv in sorted(run["config"].items())
            if kv[0] not in ("world_size", "nodes")) or "default"
        tags = {
            "scalestudy.run_id": run["run_id"],
            "scalestudy.study": study.name,
            "scalestudy.campaign": study.campaign,
            "scalestudy.system": run["system"] or "",
            "scalestudy.state": run["state"],
            "scalestudy.config_label": config_label,
        }
        commit = run.get("git_commit")
        if isinstance(commit, str) and commit:
            tags["scalestudy.git_commit"] = commit
            tags["mlflow.source.git.commit"] = commit
        params = {str(k): str(v) for k, v in run["params"].items()}
        params.update({k: str(run[k]) for k in SCALE_PARAMS})
        params["system"] = run["system"] or ""
        params["config_label"] = config_label
        started_ms = _ms(run.get("started_at")) or _ms(run.get("submitted_at")) or now_ms
        metrics = []
        for name in RUN_METRICS:
            value = _number(run.get(name))
            if value is not None:
                metrics.append((name, value, 0, started_ms))
        for name in POINT_METRICS:
            value = _number(point.get(name))
            if value is not None:
                metrics.append((name, value, 0, started_ms))
        if len(epochs):
            for row in epochs[epochs.run_id == run["run_id"]].to_dict("records"):
                for name in EPOCH_METRICS:
                    value = _number(row.get(name))
                    if value is not None:
                        metrics.append(("epoch." + name, value, int(row["epoch"]), started_ms))

        known = existing.get((study.campaign, run["run_id"]))
        if known is None:
            mlflow_run = client.create_run(
                experiment_id, start_time=started_ms, tags=tags,
                run_name="%s N=%d r%d @%s" % (config_label, run["world_size"], run["repeat"],
                                               study.campaign))
            run_uuid, logged_params, logged = mlflow_run.info.run_id, {}, set()
            created += 1
        else:
            run_uuid, logged_params = known.info.run_id, dict(known.data.params)
            metrics = _changed_metrics(client, run_uuid, metrics, set(known.data.metrics), now_ms)
            updated += 1
        new_metrics = [Metric(k, v, t, s) for k, v, s, t in metrics]
        new_params = [Param(k, v[:_PARAM_VALUE_LIMIT]) for k, v in sorted(params.items())
                      if k not in logged_params]
        new_tags = [RunTag(k, v) for k, v in sorted(tags.items())]
        for batch in _chunks(new_metrics, _MAX_METRICS):
            client.log_batch(run_uuid, metrics=batch)
        for batch in _chunks(new_params, _MAX_PARAMS):
            client.log_batch(run_uuid, params=batch)
        for batch in _chunks(new_tags, _MAX_TAGS):
            client.log_batch(run_uuid, tags=batch)
        status = FINISHED_STATES.get(run["state"])
        if status:
            client.set_terminated(run_uuid, status=status,
                                  end_time=_ms(run.get("finished_at")) or started_ms)
        else:
            client.update_run(run_uuid, status="RUNNING")
    return {"experiment_id": experiment_id, "experiment": experiment, "created": created,
            "updated": updated}


def export(results, study_name, tracking_uri, experiment=None):
    """Exports every campaign of `study_name` ("name"), or one ("name@campaign"), from a
    scalestudy.results.Results; returns the summed counts."""
    studies = ([results.study(study_name)] if "@" in study_name
               else results.campaigns(study_name))
    if not studies:
        raise FileNotFoundError("no study %s in %s" % (study_name, results.results_dir))
    from mlflow.tracking import MlflowClient
    client = MlflowClient(tracking_uri=tracking_uri)
    total = {"created": 0, "updated": 0}
    for study in studies:
        done = export_study(study, tracking_uri, experiment=experiment, client=client)
        total.update(experiment_id=done["experiment_id"], experiment=done["experiment"])
        total["created"] += done["created"]
        total["updated"] += done["updated"]
    return total
