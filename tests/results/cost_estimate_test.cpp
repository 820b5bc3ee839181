// The cost estimate from earlier measured runs of the same configuration, on study
// databases under a results dir.
#include "orchestrator/results/analysis/cost_estimate.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/study/workload_params.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

namespace {

FixtureRun measured(const std::string& id, int world_size, const std::string& seed,
                    double epoch_s) {
  FixtureRun run;
  run.run_id = id;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.gpus_per_node = world_size;
  run.params = {{"model", "small-cnn"}, {"seed", seed}};
  run.epoch_s = {epoch_s, epoch_s};
  return run;
}

RunSpec planned(int world_size, const std::string& seed) {
  RunSpec run;
  run.workload = "train";
  run.nodes = 1;
  run.world_size = world_size;
  run.tasks_per_node = world_size;
  run.slurm.gpus_per_node = world_size;
  run.params = {{"model", "small-cnn"}, {"seed", seed}};
  return run;
}

}  // namespace

TEST_CASE("configuration_key: the same but for the seed") {
  CHECK(configuration_key(planned(2, "1")) == configuration_key(planned(2, "7")));
  CHECK(configuration_key(planned(2, "1")) != configuration_key(planned(4, "1")));
  CHECK(configuration_key(planned(2, "1")) ==
        configuration_key("train", R"({"seed":"3","model":"small-cnn"})", 1, 2, 2));
}

TEST_CASE("configuration_key: a run's key equals the key of its parameters as JSON text") {
  RunSpec run = planned(2, "5");
  run.params["note"] = "quote \" backslash \\ tab \t unicode \u00e9";
  run.params["lr"] = "0.1";
  CHECK(configuration_key(run) ==
        configuration_key(run.workload, nlohmann::json(workload_params(run)).dump(), run.nodes,
                          run.world_size, run.slurm.gpus_per_node));
}

TEST_CASE("configuration_key: a named system is part of it, an implicit one is not") {
  RunSpec run = planned(2, "1");
  const std::string plain = configuration_key(run);
  run.system.id = "local";
  run.system.hash = "0123456789abcdef";
  CHECK(configuration_key(run) == plain);
  run.system.named = true;
  CHECK(configuration_key(run) != plain);
  CHECK(configuration_key(run) ==
        configuration_key(run.workload, nlohmann::json(workload_params(run)).dump(), run.nodes,
                          run.world_size, run.slurm.gpus_per_node, "0123456789abcdef"));
}

TEST_CASE("estimate_cost: without measured runs every run is planned and none estimated") {
  const CostEstimate estimate = estimate_cost({planned(1, "1"), planned(2, "1")}, {});
  CHECK(estimate.runs_planned == 2);
  CHECK(estimate.runs_estimated == 0);
  CHECK(estimate.measured_runs_used == 0);
  CHECK(estimate.gpu_hours == 0);
}

TEST_CASE("estimate_cost: median measured time × nodes × GPUs of each matching planned run") {
  // Earlier: two 1-GPU runs of 2 × 1800 s (1 h) and one 2-GPU run of 2 × 900 s (0.5 h).
  StudyFixture earlier("cost_earlier", "strong");
  earlier.add_run(measured("e1a", 1, "1", 1800));
  earlier.add_run(measured("e1b", 1, "2", 1800));
  earlier.add_run(measured("e2", 2, "1", 900));
  REQUIRE(ingest_study(earlier.db_path()).is_ok());

  const auto times = load_measured_run_times(earlier.dir());
  REQUIRE(times.size() == 3);
  // Planned: two 1-GPU repeats (1 GPU-hour each), one 2-GPU run (0.5 h × 2 GPUs = 1),
  // one 4-GPU run never measured.
  const CostEstimate estimate =
      estimate_cost({planned(1, "5"), planned(1, "6"), planned(2, "5"), planned(4, "5")}, times);
  CHECK(estimate.runs_planned == 4);
  CHECK(estimate.runs_estimated == 3);
  CHECK(estimate.measured_runs_used == 3);
  CHECK(estimate.gpu_hours == doctest::Approx(3));
  CHECK(estimate.node_hours == doctest::Approx(2.5));
  CHECK(describe_estimate(estimate) ==
        "estimate from 3 earlier measured runs: 3 of 4 runs, 3.00 GPU-hours, 2.50 node-hours");
  // The same match, per run: what sizes packed allocations.
  std::vector<RunSpec> runs = {planned(1, "5"), planned(2, "5"), planned(4, "5")};
  runs[0].run_id = "one";
  runs[1].run_id = "two";
  runs[2].run_id = "four";
  const auto seconds = measured_run_seconds(runs, times);
  CHECK(seconds.size() == 2);
  CHECK(seconds.at("one") == doctest::Approx(3600));
  CHECK(seconds.at("two") == doctest::Approx(1800));
}

TEST_CASE("estimate_cost: nothing measured, no estimate") {
  const CostEstimate estimate = estimate_cost({planned(1, "1")}, {});
  CHECK(estimate.runs_estimated == 0);
  CHECK(describe_estimate(estimate).rfind("no estimate", 0) == 0);
  CHECK(load_measured_run_times("/nonexistent/results").empty());
}
