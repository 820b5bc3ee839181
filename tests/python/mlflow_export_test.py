"""The MLflow export against a real `mlflow server` (SQLite backend store, a free port),
read back through MLflow's REST API: two campaigns of the tiny study give one MLflow run
per scalestudy run in the study's experiment, with the metrics, parameters and tags of
docs/python.md, and a second export leaves the count (and each metric's history) as it
was. Exported the way a CLI user does: python -m scalestudy export-mlflow. A value that
changed between exports (efficiency 0.93, then 0.88) is the one MLflow shows after the
second."""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

import support


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MlflowServer:
    def __init__(self, folder):
        self.port = free_port()
        self.uri = "http://127.0.0.1:%d" % self.port
        mlflow = os.path.join(os.path.dirname(sys.executable), "mlflow")
        self.log = open(os.path.join(folder, "server.log"), "w")
        self.process = subprocess.Popen(
            [mlflow, "server", "--backend-store-uri", "sqlite:///" + os.path.join(folder, "mlflow.db"),
             "--default-artifact-root", os.path.join(folder, "artifacts"), "--host", "127.0.0.1",
             "--port", str(self.port), "--workers", "1"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 240
        while True:
            try:
                with urllib.request.urlopen(self.uri + "/health", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                with open(self.log.name) as log:
                    raise RuntimeError("mlflow server did not start:\n" + log.read()[-3000:])
            time.sleep(0.5)

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()

    def get(self, path, **query):
        url = "%s/api/2.0/mlflow/%s?%s" % (self.uri, path, urllib.parse.urlencode(query))
        with urllib.request.urlopen(url, timeout=30) as answer:
            return json.load(answer)

    def post(self, path, body):
        request = urllib.request.Request("%s/api/2.0/mlflow/%s" % (self.uri, path),
                                         data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def runs(self, experiment_id):
        found, token = [], None
        while True:
            body = {"experiment_ids": [experiment_id], "max_results": 500}
            if token:
                body["page_token"] = token
            page = self.post("runs/search", body)
            found += page.get("runs", [])
            token = page.get("next_page_token")
            if not token:
                return found


def export(uri):
    done = subprocess.run(
        [sys.executable, "-m", "scalestudy", "export-mlflow", support.STUDY, uri,
         "--results-dir", support.results_dir(), "--cli", support.cli()],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=support.SOURCE_DIR)
    if done.returncode != 0:
        raise AssertionError("export-mlflow exited %d:\n%s" % (done.returncode, done.stderr))
    return json.loads(done.stdout)


class MlflowExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="scalestudy-mlflow-")
        started = time.monotonic()
        cls.server = MlflowServer(cls.folder)
        print("mlflow server up in %.1f s" % (time.monotonic() - started))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        subprocess.run(["rm", "-rf", cls.folder])

    def test_two_campaigns_one_mlflow_run_each_and_again_the_same(self):
        import scalestudy
        results = scalestudy.open(support.results_dir(), cli=support.cli())
        expected = {}
        for study in results.campaigns(support.STUDY):
            runs = study.runs()
            points = study.points()
            for run in runs.to_dict("records"):
                point = points[points.world_size == run["world_size"]].iloc[0]
                expected[(study.campaign, run["run_id"])] = (run, point)
        self.assertEqual(len(expected), 4)  # 2 campaigns x 2 runs

        started = time.monotonic()
        first = export(self.server.uri)
        print("first export %.1f s" % (time.monotonic() - started))
        self.assertEqual((first["created"], first["updated"]), (4, 0))
        experiment = self.server.get("experiments/get-by-name",
                                     experiment_name=support.STUDY)["experiment"]
        self.assertEqual(experiment["experiment_id"], first["experiment_id"])
        mlflow_runs = self.server.runs(experiment["experiment_id"])
        self.assertEqual(len(mlflow_runs), 4)

        for mlflow_run in mlflow_runs:
            tags = {t["key"]: t["value"] for t in mlflow_run["data"]["tags"]}
            params = {p["key"]: p["value"] for p in mlflow_run["data"]["params"]}
            metrics = {m["key"]: m["value"] for m in mlflow_run["data"]["metrics"]}
            run, point = expected[(tags["scalestudy.campaign"], tags["scalestudy.run_id"])]
            self.assertEqual(mlflow_run["info"]["status"], "FINISHED")
            self.assertEqual(tags["scalestudy.study"], support.STUDY)
            self.assertEqual(tags["scalestudy.system"], "local")
            self.assertEqual(tags["scalestudy.git_commit"], run["git_commit"])
            self.assertEqual(tags["mlflow.source.git.commit"], run["git_commit"])
            self.assertEqual(len(run["git_commit"]), 40)
            self.assertEqual(params["world_size"], str(run["world_size"]))
            self.assertEqual(params["global_batch"], "48")
            self.assertEqual(params["epochs"], "2")
            self.assertEqual(params["system"], "local")
            self.assertAlmostEqual(metrics["throughput_samples_per_s"],
                                   run["throughput_samples_per_s"])
            self.assertAlmostEqual(metrics["efficiency"], point.efficiency)
            self.assertAlmostEqual(metrics["step_ms"], run["step_ms"])
            self.assertAlmostEqual(metrics["cpu_rss_peak_bytes"], run["cpu_rss_peak_bytes"])
            self.assertAlmostEqual(metrics["time_to_target_s"], run["time_to_target_s"])
            self.assertNotIn("mfu", metrics)  # a CPU run without a datasheet peak
            history = self.server.get("metrics/get-history", run_id=mlflow_run["info"]["run_id"],
                                      metric_key="epoch.val_acc")["metrics"]
            self.assertEqual(sorted((m["step"], round(m["value"], 6)) for m in history),
                             [(1, 0.55), (2, 0.65)])

        second = export(self.server.uri)
        self.assertEqual((second["created"], second["updated"]), (0, 4))
        again = self.server.runs(experiment["experiment_id"])
        self.assertEqual(len(again), 4)
        self.assertEqual(sorted(r["info"]["run_id"] for r in again),
                         sorted(r["info"]["run_id"] for r in mlflow_runs))
        for mlflow_run in again:
            for key in ("epoch.val_acc", "throughput_samples_per_s"):
                history = self.server.get("metrics/get-history",
                                          run_id=mlflow_run["info"]["run_id"],
                                          metric_key=key)["metrics"]
                self.assertEqual(len(history), 2 if key.startswith("epoch.") else 1, key)

    def test_a_value_that_went_down_is_the_one_shown_after_a_re_export(self):
        # One repeat done (efficiency 0.93), then all of them (0.88): the second export must
        # make MLflow show 0.88, and a third at 0.93 again 0.93, each kept in the history.
        import scalestudy
        from scalestudy import mlflow_export
        study = scalestudy.open(support.results_dir(), cli=support.cli()).study(support.STUDY)

        class WithEfficiency:
            def __init__(self, efficiency):
                self.efficiency = efficiency
                self.name, self.campaign = study.name, study.campaign

            def report(self):
                report = study.report()
                for point in report["points"]:
                    point["efficiency"] = self.efficiency
                return report

            def runs(self):
                return study.runs()

            def epochs(self):
                return study.epochs()

        def shown_efficiencies(experiment_id):
            return [{m["key"]: m["value"] for m in r["data"]["metrics"]}["efficiency"]
                    for r in self.server.runs(experiment_id)]

        experiment = "pytiny-reexport"
        for efficiency in (0.93, 0.88, 0.88, 0.93):
            done = mlflow_export.export_study(WithEfficiency(efficiency), self.server.uri,
                                              experiment=experiment)
            shown = shown_efficiencies(done["experiment_id"])
            self.assertEqual(len(shown), 2)
            self.assertEqual(shown, [efficiency] * 2)
        for mlflow_run in self.server.runs(done["experiment_id"]):
            history = self.server.get("metrics/get-history", run_id=mlflow_run["info"]["run_id"],
                                      metric_key="efficiency")["metrics"]
            self.assertEqual([m["value"] for m in sorted(history, key=lambda m: m["timestamp"])],
                             [0.93, 0.88, 0.93])
            self.assertEqual({m["step"] for m in history}, {0})


if __name__ == "__main__":
    unittest.main()
