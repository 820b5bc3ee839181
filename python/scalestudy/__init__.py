"""scalestudy's results where researchers work: DataFrames, plots, MLflow, and the CLI.

    import scalestudy
    results = scalestudy.open("results")             # a results dir
    study = results.study("quickstart")              # "quickstart@b": campaign b
    study.points()       # the report's points (pandas)    study.report()   the report JSON
    study.runs(), study.ranks(), study.epochs(), study.steps(), study.telemetry()
    study.plot_efficiency(), study.plot_throughput()  # matplotlib, the CLI's figures
    study.to_mlflow("http://127.0.0.1:5000")         # python -m scalestudy export-mlflow
    scalestudy.plan("studies/quickstart.yaml")       # the CLI's JSON
    scalestudy.run("studies/quickstart.yaml", scheduler="local")

Importing the package imports nothing beyond the standard library: pandas, matplotlib
and MLflow load when first used, so that scalestudy.record (recording a training script's
run database, standard library only) works on a training node without them. See
docs/python.md.
"""

from . import cli as _cli

__all__ = ["open", "plan", "submit", "run", "status", "Results", "Study", "CliError"]

CliError = _cli.CliError


def open(results_dir="results", cli=None):  # noqa: A001 -- scalestudy.open(results_dir)
    """The results dir's studies (scalestudy.results.Results). `cli`: the scalestudy
    binary for reports and history (default: $SCALESTUDY_CLI, PATH, then build/bin of
    the checkout this package is imported from)."""
    from .results import Results
    return Results(results_dir, cli=cli)


def __getattr__(name):
    if name in ("Results", "Study"):
        from . import results
        return getattr(results, name)
    raise AttributeError("module 'scalestudy' has no attribute %r" % name)


def _options(options):
    """Keyword options as CLI flags: results_dir="r" -> --results-dir r; True -> the
    bare flag; a list repeats the flag; None and False are left out."""
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        for one in value if isinstance(value, (list, tuple)) else [value]:
            if one is None or one is False:
                continue
            args += [flag] if one is True else [flag, str(one)]
    return args


def plan(study_yaml, cli=None, **options):
    """`scalestudy plan STUDY.yaml --format json`, parsed: the resolved runs and totals.
    Options as keywords (results_dir=, system=[...], packed=True)."""
    return _cli.run_json(["plan", study_yaml, "--format", "json"] + _options(options), cli=cli)


def status(study, cli=None, **options):
    """`scalestudy status STUDY --format json`, parsed."""
    return _cli.run_json(["status", study, "--format", "json"] + _options(options), cli=cli)


def _study_label(study_yaml, campaign, cli, results_dir):
    name = plan(study_yaml, cli=cli, **({"results_dir": results_dir} if results_dir else {}))
    name = name["runs"][0]["study"] if name.get("runs") else None
    if name and campaign and campaign != "auto":
        name += "@" + campaign
    return name


def submit(study_yaml, cli=None, **options):
    """`scalestudy submit STUDY.yaml` with the options as flags (scheduler="local",
    campaign="b", results_dir=..., max_parallel=2); returns the study's status JSON
    (`status --format json`) after it. CliError when submit fails."""
    _cli.run(["submit", study_yaml] + _options(options), cli=cli)
    label = _study_label(study_yaml, options.get("campaign"), cli, options.get("results_dir"))
    extra = {"results_dir": options["results_dir"]} if options.get("results_dir") else {}
    return status(label, cli=cli, **extra)


def run(study_yaml, cli=None, echo=True, **options):
    """`scalestudy run STUDY.yaml` (submit, wait, ingest, report) with the options as
    flags; returns the report JSON (`report --format json`) after it. Runs that failed for
    good (exit 1) still return the report; the CLI's progress goes to this process's
    output (echo=False: kept, and shown only in a CliError). With campaign="auto" the report is the default campaign's: read the new one
    with scalestudy.open(results_dir).campaigns(name)."""
    _cli.run(["run", study_yaml, "--no-plots"] + _options(options), cli=cli, ok=(0, 1),
             capture=not echo)
    label = _study_label(study_yaml, options.get("campaign"), cli, options.get("results_dir"))
    extra = ["--results-dir", options["results_dir"]] if options.get("results_dir") else []
    return _cli.run_json(["report", label, "--format", "json", "--no-ingest", "--no-plots"]
                         + extra, cli=cli, ok=(0, 1))
