"""scalestudy.open(...).study(...): every DataFrame, read from a real study's databases (two
campaigns of tests/python/tiny.yaml, 1 and 3 ranks, run by the CLI under test), with the
report's names and units, and agreeing with the CLI's own JSON and SQL."""

import json
import os
import subprocess
import sys
import unittest
import warnings

import pandas as pd

import scalestudy
import support


class DataFramesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.results = scalestudy.open(support.results_dir(), cli=support.cli())
        cls.study = cls.results.study(support.STUDY)
        cls.campaign_b = cls.results.study(support.STUDY + "@b")

    def query(self, sql, study=None):
        done = subprocess.run([support.cli(), "query", study or support.STUDY, sql, "--format",
                               "csv", "--results-dir", self.results.results_dir],
                              stdout=subprocess.PIPE, text=True, check=True)
        return done.stdout

    def test_studies_lists_each_campaign_database(self):
        studies = self.results.studies()
        self.assertEqual(sorted(zip(studies.study, studies.campaign)),
                         [(support.STUDY, "b"), (support.STUDY, "default")])
        self.assertEqual([s.campaign for s in self.results.campaigns(support.STUDY)],
                         ["default", "b"])
        self.assertEqual(self.campaign_b.label, "pytiny@b")
        with self.assertRaisesRegex(FileNotFoundError, "no study database"):
            self.results.study("nosuchstudy")

    def test_points_are_the_reports_points(self):
        points = self.study.points()
        report = self.study.report()
        self.assertEqual(list(points.world_size), [1, 3])
        self.assertEqual(list(points.config_label), ["default", "default"])
        for row, point in zip(points.to_dict("records"), report["points"]):
            self.assertEqual(row["throughput_samples_per_s"],
                             point["throughput_samples_per_s"]["median"])
            self.assertEqual(row["efficiency"], point["efficiency"])
            self.assertEqual(row["step_ms"], point["step_ms"]["median"])
            self.assertEqual(row["run_ids"], point["runs"]["run_ids"])
        self.assertEqual(points.efficiency[0], 1.0)
        self.assertTrue(points.is_baseline[0])
        self.assertTrue(0 < points.efficiency[1] <= 1.5)
        self.assertTrue((points.throughput_samples_per_s > 0).all())
        self.assertIn("phases_pct_compute", points.columns)

    def test_runs_have_state_configuration_and_figures(self):
        runs = self.study.runs()
        self.assertEqual(list(runs.world_size), [1, 3])
        self.assertEqual(set(runs.state), {"COMPLETED"})
        self.assertEqual(set(runs.campaign), {"default"})
        self.assertEqual(set(runs.ingest_status), {"ingested"})
        self.assertEqual(runs.params[0]["epochs"], "2")
        self.assertEqual(runs.config[1], {"world_size": "3"})
        for out_dir in runs.out_dir:
            self.assertTrue(os.path.isfile(os.path.join(out_dir, "rank0.sqlite")))
        # The report's per-run figures: the point of one repeat has the run's values.
        points = self.study.points().set_index("world_size")
        for run in runs.to_dict("records"):
            point = points.loc[run["world_size"]]
            self.assertAlmostEqual(run["throughput_samples_per_s"],
                                   point.throughput_samples_per_s, places=6)
            self.assertAlmostEqual(run["step_ms"], point.step_ms, places=6)
            self.assertAlmostEqual(run["final_val_acc"], 0.65)
            self.assertGreater(run["cpu_rss_peak_bytes"], 0)
            self.assertTrue(pd.isna(run["gpu_peak_bytes"]))
        # Completed runs have no failure class.
        self.assertTrue(runs.failure_class.isna().all())
        # Campaign b re-ran the same runs (same ids), measured again: jobs and run folders of
        # its own (not its times: whole seconds, and one second can hold both campaigns).
        runs_b = self.campaign_b.runs()
        self.assertEqual(list(runs_b.run_id), list(runs.run_id))
        self.assertEqual(set(runs_b.campaign), {"b"})
        self.assertTrue(set(runs_b.job_id).isdisjoint(runs.job_id))
        self.assertTrue(set(runs_b.out_dir).isdisjoint(runs.out_dir))

    def test_ranks_one_row_per_rank_with_summary_columns(self):
        ranks = self.study.ranks()
        runs = self.study.runs().set_index("run_id")
        self.assertEqual(len(ranks), sum(support.RANKS.values()))
        three = ranks[ranks.world_size == 3]
        self.assertEqual(list(three["rank"]), [0, 1, 2])
        self.assertEqual(list(three.local_rank), [0, 1, 2])
        self.assertEqual(set(ranks.status), {"completed"})
        self.assertEqual(set(ranks.workload), {"tiny"})
        for column in ("samples_per_s", "step_ms_median", "cpu_rss_peak_bytes", "final_val_acc"):
            self.assertTrue(ranks[column].notna().all(), column)
        # Every rank of the 3-rank run recorded the same global throughput, the run's.
        run_id = three.run_id.iloc[0]
        self.assertAlmostEqual(three.samples_per_s.iloc[0],
                               runs.loc[run_id].throughput_samples_per_s)
        self.assertEqual(self.query(
            "SELECT count(*) AS n FROM m_run").splitlines()[1].strip(), str(len(ranks)))

    def test_epochs_every_rank_and_epoch(self):
        epochs = self.study.epochs()
        self.assertEqual(list(epochs.columns),
                         ["run_id", "rank", "epoch", "lr", "train_loss", "train_acc",
                          "val_loss", "val_acc", "samples_per_s", "epoch_s"])
        self.assertEqual(len(epochs), 2 * sum(support.RANKS.values()))
        self.assertEqual(sorted(set(epochs.epoch)), [1, 2])
        three = epochs[epochs.run_id == self.study.runs().run_id[1]]
        self.assertEqual(sorted(set(three["rank"])), [0, 1, 2])
        self.assertEqual(list(epochs.val_acc.round(6).unique()), [0.55, 0.65])
        self.assertTrue((epochs.epoch_s > 0).all())

    def test_steps_every_rank_from_the_run_databases(self):
        steps = self.study.steps()
        self.assertEqual(list(steps.columns),
                         ["run_id", "rank", "global_step", "epoch", "warmup", "samples",
                          "data_ms", "forward_ms", "backward_ms", "comm_exposed_ms",
                          "optimizer_ms", "step_ms", "loss"])
        per_rank = steps.groupby(["run_id", "rank"]).size()
        self.assertEqual(len(per_rank), sum(support.RANKS.values()))
        self.assertEqual(set(per_rank), {12})  # 2 epochs of 6 steps
        self.assertEqual(steps.warmup.dtype, bool)
        self.assertEqual(int(steps.warmup.sum()), sum(support.RANKS.values()))
        measured = self.study.steps(include_warmup=False)
        self.assertEqual(len(measured), len(steps) - sum(support.RANKS.values()))
        self.assertTrue((steps.step_ms >= steps.forward_ms + steps.backward_ms).all())
        # Exposed communication only where there is someone to wait for.
        world = steps.merge(self.study.runs()[["run_id", "world_size"]], on="run_id")
        self.assertLess(world[world.world_size == 1].comm_exposed_ms.median(), 1.0)
        self.assertGreater(world[world.world_size == 3].comm_exposed_ms.median(), 2.0)
        # The medians match the summary each rank wrote.
        ranks = self.study.ranks().set_index(["run_id", "rank"])
        medians = measured.groupby(["run_id", "rank"]).step_ms.median()
        for key, median in medians.items():
            self.assertAlmostEqual(median, ranks.loc[key].step_ms_median, places=6)

    def test_telemetry_samples_per_rank(self):
        telemetry = self.study.telemetry()
        self.assertEqual(list(telemetry.columns),
                         ["run_id", "rank", "t_s", "cpu_rss_bytes", "gpu_util_pct",
                          "gpu_mem_used_bytes", "gpu_power_w", "gpu_temp_c"])
        self.assertEqual(len(telemetry), 2 * sum(support.RANKS.values()))
        self.assertEqual(sorted(set(telemetry.cpu_rss_bytes)), [50_000_001, 50_000_002])
        self.assertTrue(telemetry.gpu_util_pct.isna().all())
        self.assertEqual(telemetry.gpu_util_pct.dtype.kind, "f")

    def test_databases_stay_unwritten(self):
        before = {}
        for name in os.listdir(self.results.results_dir):
            if name.endswith(".sqlite"):
                before[name] = os.stat(os.path.join(self.results.results_dir, name)).st_mtime_ns
        for study in (self.study, self.campaign_b):
            study.runs(), study.ranks(), study.epochs(), study.steps(), study.telemetry()
        after = {name: os.stat(os.path.join(self.results.results_dir, name)).st_mtime_ns
                 for name in before}
        self.assertEqual(before, after)

    def test_history_and_report_are_the_clis_json(self):
        history = self.study.history()
        self.assertEqual(json.loads(json.dumps(history)), history)
        text = json.dumps(history)
        self.assertIn('"b"', text)
        report = self.campaign_b.report()
        self.assertEqual(report["schema"], "scalestudy.report/1")
        self.assertEqual(len(report["points"]), 2)

    def test_plots_draw_the_clis_figures(self):
        out = os.path.join(self.results.results_dir, "..", "plots")
        os.makedirs(out, exist_ok=True)
        ax = self.study.plot_efficiency(path=os.path.join(out, "efficiency.png"))
        self.assertEqual(ax.get_title(), "pytiny: strong-scaling efficiency")
        self.assertEqual(ax.get_xlabel(), "ranks")
        labels = [line.get_label() for line in ax.get_lines()]
        self.assertEqual(labels, ["ideal", "default"])
        x, y = ax.get_lines()[1].get_data()
        points = self.study.points()
        self.assertEqual(list(x), [1, 3])
        self.assertAlmostEqual(y[1], points.efficiency[1] * 100)
        ax = self.study.plot_throughput(path=os.path.join(out, "throughput.png"))
        self.assertEqual(ax.get_ylabel(), "samples/s")
        self.assertIn("ideal linear", [line.get_label() for line in ax.get_lines()])
        for name in ("efficiency.png", "throughput.png"):
            with open(os.path.join(out, name), "rb") as png:
                self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n")

    def test_plan_drives_the_cli(self):
        plan = scalestudy.plan(support.STUDY_YAML, cli=support.cli(),
                               results_dir=self.results.results_dir)
        self.assertEqual([run["world_size"] for run in plan["runs"]], [1, 3])
        self.assertEqual(plan["runs"][0]["study"], support.STUDY)


class FailureClassTest(unittest.TestCase):
    """runs() carries each run's failure class and evidence, and reads a database from before
    them (no such columns) as None."""

    def copied_results(self):
        import shutil
        import tempfile
        folder = tempfile.mkdtemp(prefix="scalestudy-failure-")
        self.addCleanup(shutil.rmtree, folder, True)
        shutil.copy(os.path.join(support.results_dir(), support.STUDY + ".sqlite"), folder)
        return folder, os.path.join(folder, support.STUDY + ".sqlite")

    def test_runs_show_the_failure_class(self):
        import sqlite3
        folder, database = self.copied_results()
        with sqlite3.connect(database) as db:
            db.execute("UPDATE runs SET state = 'FAILED', failure_class = 'program', "
                       "failure_evidence = ? WHERE world_size = 3",
                       ("rank0.log: KeyError: 'lr'",))
        runs = scalestudy.open(folder, cli=support.cli()).study(support.STUDY).runs()
        failed = runs[runs.world_size == 3].iloc[0]
        self.assertEqual(failed.failure_class, "program")
        self.assertEqual(failed.failure_evidence, "rank0.log: KeyError: 'lr'")

    def test_a_database_from_before_failure_classes_reads(self):
        import sqlite3
        folder, database = self.copied_results()
        with sqlite3.connect(database) as db:
            db.execute("ALTER TABLE runs DROP COLUMN failure_class")
            db.execute("ALTER TABLE runs DROP COLUMN failure_evidence")
        runs = scalestudy.open(folder, cli=support.cli()).study(support.STUDY).runs()
        self.assertEqual(list(runs.world_size), [1, 3])
        self.assertTrue(runs.failure_class.isna().all())


class CliDrivingTest(unittest.TestCase):
    """scalestudy.submit / status / run drive the CLI and return its JSON."""

    def test_submit_then_run_return_the_clis_json(self):
        import shutil
        import tempfile
        folder = tempfile.mkdtemp(prefix="scalestudy-drive-")
        self.addCleanup(shutil.rmtree, folder, True)
        status = scalestudy.submit(support.STUDY_YAML, cli=support.cli(), scheduler="local",
                                   results_dir=folder)
        self.assertIn(support.STUDY, json.dumps(status))
        report = scalestudy.run(support.STUDY_YAML, cli=support.cli(), echo=False,
                                scheduler="local", results_dir=folder)
        self.assertEqual(report["study"], support.STUDY)
        self.assertEqual([p["runs"]["measured"] for p in report["points"]], [1, 1])
        with self.assertRaises(scalestudy.CliError) as failed:
            scalestudy.plan("tests/python/no-such-study.yaml", cli=support.cli())
        self.assertNotEqual(failed.exception.returncode, 0)
        self.assertIn("no-such-study.yaml", str(failed.exception))


class RefusalsTest(unittest.TestCase):
    """What the package refuses or warns about, instead of reading the wrong thing or
    answering with a traceback."""

    def copied_results(self):
        import shutil
        import tempfile
        folder = tempfile.mkdtemp(prefix="scalestudy-refusals-")
        self.addCleanup(shutil.rmtree, folder, True)
        results = os.path.join(folder, "results")
        shutil.copytree(support.results_dir(), results)
        return results

    def test_a_study_name_with_a_path_is_refused(self):
        results = scalestudy.open(support.results_dir(), cli=support.cli())
        outside = os.path.join(os.path.dirname(results.results_dir), "outside.sqlite")
        with open(outside, "w"):
            pass
        self.addCleanup(os.remove, outside)
        for name, campaign in (("../outside", "default"), (support.STUDY, "../../outside"),
                               ("a@b", "default"), ("", "default")):
            with self.assertRaisesRegex(ValueError, "is not a study name"):
                scalestudy.Study(results, name, campaign)

    def test_a_database_without_runs_is_a_clear_error(self):
        import sqlite3
        import tempfile
        folder = tempfile.mkdtemp(prefix="scalestudy-noruns-")
        self.addCleanup(subprocess.run, ["rm", "-rf", folder])
        db = sqlite3.connect(os.path.join(folder, "other.sqlite"))
        db.execute("CREATE TABLE notes (text TEXT)")
        db.commit()
        db.close()
        results = scalestudy.open(folder, cli=support.cli())
        with self.assertRaisesRegex(ValueError, "not a study database: it has no runs table"):
            results.study("other")
        done = subprocess.run(
            [sys.executable, "-m", "scalestudy", "export-mlflow", "other", "http://127.0.0.1:9",
             "--results-dir", folder, "--cli", support.cli()],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertIn("other.sqlite is not a study database", done.stderr)

    def test_steps_say_when_rank_databases_are_missing(self):
        results = scalestudy.open(self.copied_results(), cli=support.cli())
        study = results.study(support.STUDY)
        three = study.runs().set_index("world_size").loc[3]
        os.remove(os.path.join(three.out_dir, "rank1.sqlite"))
        with self.assertWarnsRegex(RuntimeWarning, "run %s: rank database\\(s\\) of rank\\(s\\) "
                                   "1 of 3 missing" % three.run_id):
            steps = study.steps()
        # Not ingested with --steps: the run's steps are nowhere, and say so.
        self.assertEqual(set(steps.run_id), set(study.runs().run_id) - {three.run_id})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            results.study(support.STUDY + "@b").steps()  # every rank database there


if __name__ == "__main__":
    os.chdir(support.SOURCE_DIR)
    unittest.main()
