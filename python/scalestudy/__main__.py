"""python -m scalestudy COMMAND: what the package adds to the CLI.

  export-mlflow STUDY[@CAMPAIGN] TRACKING_URI [--results-dir DIR] [--experiment NAME]
      every campaign of STUDY (or the one named) to an MLflow tracking server; again
      updates the same MLflow runs (scalestudy.mlflow_export)
  schema [run|study_state|measurements]
      print the path of a schema file (or every one), the one definition of the tables
"""

import argparse
import contextlib
import json
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m scalestudy",
                                     description=__doc__.split("\n\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export-mlflow", help="export a study's runs to MLflow")
    export.add_argument("study", help="STUDY (every campaign) or STUDY@CAMPAIGN")
    export.add_argument("tracking_uri", help="e.g. http://127.0.0.1:5000")
    export.add_argument("--results-dir", default="results")
    export.add_argument("--experiment", help="experiment name (default: the study's)")
    export.add_argument("--cli", help="the scalestudy binary (default: $SCALESTUDY_CLI, PATH,"
                                      " build/bin)")
    schema = commands.add_parser("schema", help="print the path of a schema file")
    schema.add_argument("name", nargs="?", choices=["run", "study_state", "measurements"])
    args = parser.parse_args(argv)

    if args.command == "schema":
        from . import schema as schema_files
        names = [args.name] if args.name else ["run", "study_state", "measurements"]
        for name in names:
            print(schema_files.path(name + ".sql"))
        return 0
    from . import mlflow_export
    from .results import Results
    try:
        # MLflow prints a line per run it ends ("View run ..."): stderr, so that stdout
        # holds only this command's JSON.
        with contextlib.redirect_stdout(sys.stderr):
            done = mlflow_export.export(Results(args.results_dir, cli=args.cli), args.study,
                                        args.tracking_uri, experiment=args.experiment)
    except (FileNotFoundError, RuntimeError, ValueError) as error:
        print("scalestudy export-mlflow: %s" % error, file=sys.stderr)
        return 1
    print(json.dumps(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
