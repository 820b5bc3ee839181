// The scheduler registry: the table's names, the factory by name, the options each backend
// checks, the job-id families, and detection ending in the fallback.
#include "orchestrator/sched/scheduler_registry.hpp"

#include <doctest/doctest.h>

namespace scalestudy::sched {
namespace {

TEST_CASE("the registry names every backend and makes each by name") {
  CHECK(scheduler_names() == std::vector<std::string>{"local", "slurm", "slurmrest"});
  auto local = make_scheduler("local", {});
  REQUIRE(local.is_ok());
  CHECK((*local)->name() == "local");
  CHECK((*local)->runs_on_this_host());
  auto unknown = make_scheduler("pbs", {});
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message() == "unknown scheduler 'pbs' (known: local, slurm, slurmrest)");
}

TEST_CASE("backend options are checked by the backend that declares them") {
  CHECK(check_scheduler_options({{"--max-parallel", "2"}, {"--hold", ""}}).is_ok());
  Status bad = check_scheduler_options({{"--max-parallel", "0"}});
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.message() == "--max-parallel and --max-slots take positive numbers");
  auto local = make_scheduler("local", {}, {{"--max-parallel", "3"}});
  REQUIRE(local.is_ok());
  CHECK((*local)->max_parallel_runs() == 3);
}

TEST_CASE("backends of one family share job ids") {
  CHECK(share_job_ids("slurm", "slurmrest"));
  CHECK(share_job_ids("local", "local"));
  CHECK_FALSE(share_job_ids("local", "slurm"));
}

TEST_CASE("detection asks the probes in order and ends with the fallback") {
  auto order = detection_order();
  REQUIRE(order.size() == 3);
  CHECK(order[0]->name == "slurmrest");
  CHECK(order[1]->name == "slurm");
  CHECK(order[2]->name == "local");
  CHECK((order[2]->detect == nullptr));
}

}  // namespace
}  // namespace scalestudy::sched
