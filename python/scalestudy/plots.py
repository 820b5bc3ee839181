"""The CLI's efficiency and throughput figures (orchestrator/results/report/plots.cpp)
drawn with matplotlib from the report JSON, on an Axes of the caller's figure or a new
one: the same series (one per configuration, measured points only), axes (ranks or GPUs
on a log2 scale with a tick at every scale), ideal lines and titles."""

# Headless (no DISPLAY) matplotlib falls back to Agg by itself; a notebook keeps its inline
# backend.
import matplotlib.pyplot as plt


def _series(report):
    """Measured points grouped by configuration, in report order."""
    groups = {}
    for point in report.get("points", []):
        if not (point.get("runs") or {}).get("run_ids"):
            continue
        groups.setdefault(point["config_label"], []).append(point)
    return list(groups.items())


def _scale_label(report):
    return "GPUs" if report.get("device") == "gpu" else "ranks"


def _scale_axis(ax, report):
    scales = sorted({p["world_size"] for p in report.get("points", [])}
                    | {q["world_size"] for proj in report.get("projections", [])
                       for q in proj.get("points", [])})
    ax.set_xscale("log", base=2)
    if scales:
        ax.set_xticks(scales)
        ax.set_xticklabels([str(s) for s in scales])
        ax.set_xlim(scales[0] * 0.8, scales[-1] * 1.25)
    ax.set_xlabel(_scale_label(report))
    ax.grid(True)


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.5))
    return ax


def _finish(ax, path):
    ax.legend(loc="upper left", frameon=True)
    if path:
        ax.figure.savefig(path, bbox_inches="tight", dpi=110)
    return ax


def plot_efficiency(report, ax=None, path=None):
    """Efficiency [%] against scale per configuration, the ideal at 100 and the
    projection (report --project) dashed. Returns the Axes; saves to `path` if given."""
    ax = _axes(ax)
    ax.set_title("%s: %s-scaling efficiency" % (report["study"], report["kind"]))
    ax.set_ylabel("efficiency [%]")
    _scale_axis(ax, report)
    ax.set_ylim(0, 110)
    ax.axhline(100, linestyle="--", color="gray", label="ideal")
    for label, points in _series(report):
        measured = [(p["world_size"], p["efficiency"] * 100) for p in points
                    if p.get("efficiency") is not None]
        if measured:
            ax.plot(*zip(*measured), marker="o", linewidth=2, label=label)
    for projection in report.get("projections", []):
        label = ("projected (ring all-reduce model)" if projection["config_label"] == "default"
                 else "projected (%s)" % projection["config_label"])
        ax.plot([q["world_size"] for q in projection["points"]],
                [q["efficiency"] * 100 for q in projection["points"]],
                linestyle="--", marker="o", fillstyle="none", linewidth=2, label=label)
    return _finish(ax, path)


def plot_throughput(report, ax=None, path=None):
    """Throughput (median, min-max bars) against scale per configuration and the ideal
    linear line from the series' baseline point. Returns the Axes."""
    ax = _axes(ax)
    unit = (report.get("settings") or {}).get("throughput_unit", "samples")
    ax.set_title("%s: throughput" % report["study"])
    ax.set_ylabel("%s/s" % unit)
    _scale_axis(ax, report)
    for label, points in _series(report):
        base = next((p for p in points if p.get("is_baseline")), points[0])
        base_median = base["throughput_samples_per_s"]["median"]
        scales = [p["world_size"] for p in points]
        medians = [p["throughput_samples_per_s"]["median"] for p in points]
        low = [m - p["throughput_samples_per_s"]["min"] for m, p in zip(medians, points)]
        high = [p["throughput_samples_per_s"]["max"] - m for m, p in zip(medians, points)]
        line = ax.errorbar(scales, medians, yerr=[low, high], marker="o", linewidth=2,
                           capsize=3, label="measured (median, min–max)" if label == "default"
                           else label)
        ax.plot(scales, [base_median * s / max(1, base["world_size"]) for s in scales],
                linestyle="--", linewidth=1.5, color=line[0].get_color(),
                label="ideal linear" if label == "default" else "ideal (%s)" % label)
    ax.set_ylim(bottom=0)
    return _finish(ax, path)
