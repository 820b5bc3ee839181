// A study planned on systems (docs/systems.md): the `systems:` axis and --system, each
// system's keys beneath the study's, run identity, the implicit system of a study that
// names none, and the limits every run is checked against, with both files' positions.
#include <doctest/doctest.h>

#include <set>

#include "orchestrator/study/study.hpp"
#include "orchestrator/systems/system_for_study.hpp"
#include "tests/systems/system_files.hpp"

namespace scalestudy::testing {
namespace {

constexpr const char* kPoints = R"(study: onsystems
kind: strong
workload: {model: small-cnn, dataset: synthetic, epochs: 1}
scale: [1, 2]
global_batch: 64
)";
const std::string kStudy = std::string(kPoints) + "slurm: {time: \"4\"}\n";

Result<Study> load(const std::string& yaml, const SystemFiles& files,
                   std::vector<std::string> labels = {}, const std::string& host = "nowhere") {
  return load_study_text(yaml, "study.yaml",
                         systems::study_system_choice(files.path(), std::move(labels), host));
}

Study load_ok(const std::string& yaml, const SystemFiles& files,
              std::vector<std::string> labels = {}, const std::string& host = "nowhere") {
  Result<Study> study = load(yaml, files, std::move(labels), host);
  INFO(study.status().message());
  REQUIRE(study.is_ok());
  return std::move(study).value();
}

std::string load_error(const std::string& yaml, const SystemFiles& files,
                       std::vector<std::string> labels = {}) {
  Result<Study> study = load(yaml, files, std::move(labels));
  REQUIRE_FALSE(study.is_ok());
  return study.status().message();
}

std::set<std::string> ids(const Study& study) {
  std::set<std::string> ids;
  for (const RunSpec& run : study.runs) ids.insert(run.run_id);
  return ids;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("systems: an axis; each run on one system, with its partition, time and id") {
  SystemFiles files("axis");
  Study study = load_ok(kStudy + "systems: [testcluster-small, testcluster-big]\n", files);
  REQUIRE(study.runs.size() == 4);
  CHECK(study.systems == std::vector<std::string>{"testcluster-small", "testcluster-big"});
  CHECK(study.varied_keys.front() == "system");
  CHECK(ids(study).size() == 4);
  for (const RunSpec& run : study.runs) {
    CAPTURE(run.run_id);
    CHECK(run.system.named);
    CHECK(run.system.hash.size() == 16);
    CHECK(run.varied.at("system") == run.system.label());
    CHECK(run.slurm.partition == (run.system.id == "testcluster-small" ? "small" : "big"));
    CHECK(run.slurm.time_limit_minutes == 4);  // the study's own key wins
    CHECK(run.system.node.cores == 4);
    CHECK(run.system.scheduler == "slurm");
  }
  // The same point on two systems is two runs; on one named system, not today's run.
  Study plain = load_ok(kStudy, files);
  Study one = load_ok(kStudy + "systems: [testcluster-big]\n", files);
  CHECK(one.runs.size() == 2);
  CHECK(one.varied_keys == plain.varied_keys);
  for (const std::string& id : ids(one)) CHECK(ids(plain).count(id) == 0);
}

TEST_CASE("no system named: the detected or local system is recorded, nothing else changes") {
  SystemFiles files("implicit");
  Study without = [] {
    Result<Study> study = load_study_text(kStudy, "study.yaml");
    REQUIRE(study.is_ok());
    return std::move(study).value();
  }();
  Study local = load_ok(kStudy, files);
  CHECK(ids(local) == ids(without));
  CHECK(local.systems.empty());
  CHECK(local.runs.front().system.id == "local");
  CHECK_FALSE(local.runs.front().system.named);

  files.write("site", R"(scheduler: {kind: slurm, partition: batch, account: proj}
runtime: {modules: [cuda/12.4], env: {NCCL_DEBUG: WARN}}
detect: {hostname: "login[0-9]+"}
)");
  Study detected = load_ok(kStudy + "env: {OMP_NUM_THREADS: '1'}\n", files, {}, "login2");
  const RunSpec& run = detected.runs.front();
  CHECK(run.system.id == "site");
  CHECK_FALSE(run.system.named);
  CHECK(run.slurm.partition.empty());
  CHECK(run.modules.empty());
  CHECK(run.env == std::map<std::string, std::string>{{"OMP_NUM_THREADS", "1"}});
  Study plain_detected = load_ok(kStudy, files, {}, "login2");
  CHECK(ids(plain_detected) == ids(without));
  // A detected system that cannot be read is left out; the study still plans.
  files.write("site",
              "scheduler: {kind: slurm}\nlimits: {max_nodes: none}\n"
              "detect: {hostname: \"login[0-9]+\"}\n");
  CHECK(ids(load_ok(kStudy, files, {}, "login2")) == ids(without));
}

TEST_CASE("--system replaces the study's list; a study's own keys win over a system's") {
  SystemFiles files("choice");
  files.write("site", R"(scheduler: {kind: slurm, partition: batch, reservation: maint}
node: {gpus: 4, cores: 64}
launcher: {srun_flags: [--cpu-bind=cores]}
runtime: {modules: [cuda/12.4]}
)");
  const std::string study = std::string(kPoints) + "systems: [testcluster-small]\n" +
                            "modules: [cuda/12.6]\nslurm: {partition: mine, gpus_per_node: 2}\n";
  Study chosen = load_ok(study, files, {"site"});
  REQUIRE(chosen.runs.size() == 2);
  CHECK(chosen.systems == std::vector<std::string>{"site"});
  const RunSpec& run = chosen.runs.back();
  CHECK(run.system.id == "site");
  CHECK(run.slurm.partition == "mine");
  CHECK(run.modules == std::vector<std::string>{"cuda/12.6"});
  CHECK(run.slurm.gpus_per_node == 2);
  CHECK(run.slurm.reservation == "maint");
  CHECK(run.slurm.extra_options.empty());
  // The study's own slurm.extra adds to what the system asks, it does not drop its
  // reservation; a study's slurm.reservation replaces the system's.
  Study extra = load_ok(std::string(kPoints) + "slurm: {extra: [--exclusive]}\n", files, {"site"});
  CHECK(extra.runs.back().slurm.reservation == "maint");
  CHECK(extra.runs.back().slurm.extra_options == std::vector<std::string>{"--exclusive"});
  Study own = load_ok(std::string(kPoints) + "slurm: {reservation: mine}\n", files, {"site"});
  CHECK(own.runs.back().slurm.reservation == "mine");
  CHECK(ids(own) != ids(extra));
  CHECK(run.system.srun_flags == std::vector<std::string>{"--cpu-bind=cores"});
  CHECK(run.system.node.gpus == 4);
  // `scale` in GPUs maps to nodes by the system's node.gpus when the study gives none.
  Study by_node = load_ok(
      "study: gpus\nkind: strong\nworkload: {model: small-cnn}\nscale: [4, 8]\nglobal_batch: "
      "64\nsystems: [site]\n",
      files);
  CHECK(by_node.runs.back().nodes == 2);
  CHECK(by_node.runs.back().tasks_per_node == 4);
}

TEST_CASE("a run over its system's limits is refused with the study's and the system's line") {
  SystemFiles files("limits");
  const std::string shipped = SystemFiles::shipped_dir();
  std::string nodes = load_error(
      "study: big\nkind: strong\nworkload: {model: small-cnn}\nscale:\n  - {nodes: 4, "
      "ranks_per_node: 1}\nglobal_batch: 64\nsystems: [testcluster-small]\n",
      files);
  CAPTURE(nodes);
  CHECK(has(nodes,
            "study.yaml:5:5: field 'scale': 4 ranks on 4 nodes is more than "
            "limits.max_nodes 2 of system testcluster-small (" +
                shipped + "/testcluster-small.yaml:7:14)"));

  std::string time = load_error(std::string(kPoints) + "slurm: {time: \"00:20:00\"}\n" +
                                    "systems: [testcluster-big, testcluster-small]\n",
                                files);
  CAPTURE(time);
  CHECK(has(time,
            "study.yaml:6:15: field 'slurm.time': 00:20:00 is longer than limits.max_time "
            "00:05:00 of system testcluster-small (" +
                shipped + "/testcluster-small.yaml:8:13)"));
  CHECK_FALSE(has(time, "testcluster-big ("));

  std::string gpus = load_error(
      std::string(kPoints) + "slurm: {gpus_per_node: 2}\nsystems: [testcluster]\n", files);
  CHECK(has(gpus, "with 2 GPUs per node is more than node.gpus 0 of system testcluster"));
}

TEST_CASE("a parameter named 'system' is refused on one named system as on several") {
  SystemFiles files("parameter");
  const std::string study =
      "study: p\nkind: sensitivity\nworkload: {model: small-cnn}\nscale: [1]\n"
      "global_batch: 64\nmatrix: {system: [a, b]}\n";
  for (const std::string systems :
       {"[testcluster-small]", "[testcluster-small, testcluster-big]"}) {
    CAPTURE(systems);
    CHECK(has(load_error(study + "systems: " + systems + "\n", files),
              "a parameter named 'system' cannot be told from the study's systems"));
  }
  CHECK(load(study, files).is_ok());  // no system named: the parameter is the study's own
}

TEST_CASE("errors about the study's own structure point into the study, not the system") {
  SystemFiles files("positions");
  std::string missing = load_error(
      "kind: strong\nworkload: {model: small-cnn}\nscale: [1]\nglobal_batch: 8\n"
      "systems: [testcluster-small]\n",
      files);
  CAPTURE(missing);
  CHECK(has(missing, "study.yaml:1:1: field 'study': missing"));
}

TEST_CASE("unknown, repeated and unresolvable systems are errors at the label") {
  SystemFiles files("labels");
  std::string unknown = load_error(kStudy + "systems: [local, nowhere, local]\n", files);
  CAPTURE(unknown);
  CHECK(has(unknown, "study.yaml:7:18: field 'systems[1]': "));
  CHECK(has(unknown, "nowhere"));
  CHECK(has(unknown, "study.yaml:7:27: field 'systems[2]': 'local' is named twice"));
  std::string parameter = load_error(
      "study: p\nworkload: {model: small-cnn, system: fast}\nsystems: [local, testcluster]\n",
      files);
  CHECK(has(parameter, "study.yaml:2:38: field 'system': a parameter named 'system'"));
  CHECK(has(load_error(kStudy + "systems: []\n", files),
            "field 'systems': may not be an empty list"));
  files.write("broken", "scheduler: {kind: slurm}\nlimits: {max_nodes: none}\n");
  std::string broken = load_error(kStudy, files, {"broken"});
  CAPTURE(broken);
  CHECK(has(broken, "command line: field '--system': "));
  CHECK(has(broken, "broken.yaml:2:21: field 'limits.max_nodes'"));
}

}  // namespace
}  // namespace scalestudy::testing
