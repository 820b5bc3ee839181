#include "orchestrator/sched/slurmrest_limits.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::sched;
using nlohmann::json;

namespace {

// Trimmed from slurmrestd 22.05 (OpenAPI v0.0.38) on the test cluster: root's association
// with MaxSubmitJobs=7, QOS normal with MaxSubmitPU=9.
const json kAssociations = json::parse(R"({"associations": [
  {"account": "root", "user": "root", "default": {"qos": null}, "qos": ["normal"],
   "max": {"jobs": {"per": {"count": null, "accruing": null, "submitted": null,
                            "wall_clock": null},
                    "active": 5, "accruing": null, "total": 7}}},
  {"account": "scalestudy", "user": "nobody", "default": {"qos": "normal"}, "qos": [],
   "max": {"jobs": {"active": null, "total": null}}}]})");
const json kQos = json::parse(R"({"QOS": [
  {"name": "normal", "limits": {"max": {"jobs": {"active_jobs": {"per": {"user": 3}},
                                                 "per": {"account": null, "user": 9}}}}},
  {"name": "tight", "limits": {"max": {"jobs": {"per": {"user": 1}}}}}]})");

}  // namespace

TEST_CASE("slurmrestd's associations and QOS give the tightest submit limit") {
  auto root = rest_submit_limit(kAssociations, kQos, "root");
  REQUIRE(root);
  CHECK(root->jobs == 7);  // max.jobs.total, not the running-jobs limit (active)
  CHECK(root->source == "MaxSubmitJobs=7 for user root");
  auto nobody = rest_submit_limit(kAssociations, kQos, "nobody");
  REQUIRE(nobody);
  CHECK(nobody->jobs == 9);  // its default QOS's per-user submit limit
  CHECK(nobody->source == "MaxSubmitPU=9 of QOS normal");
  CHECK_FALSE(rest_submit_limit(kAssociations, kQos, "alice"));
  CHECK_FALSE(rest_submit_limit(json::object(), json::object(), "root"));
}

TEST_CASE("the user's queued jobs count every pending array task and no ended job") {
  const json jobs = json::parse(R"({"jobs": [
    {"job_id": 10, "user_name": "root", "job_state": "RUNNING", "array_task_string": ""},
    {"job_id": 11, "user_name": "root", "job_state": "PENDING", "array_task_string": "0-3%2"},
    {"job_id": 12, "user_name": "root", "job_state": "RUNNING", "array_job_id": 11,
     "array_task_id": 4},
    {"job_id": 13, "user_name": "root", "job_state": "COMPLETED", "array_task_string": ""},
    {"job_id": 14, "user_name": "nobody", "job_state": "PENDING", "array_task_string": ""}]})");
  CHECK(rest_queued_jobs(jobs, "root") == 6);
  CHECK(rest_queued_jobs(jobs, "nobody") == 1);
  CHECK(rest_queued_jobs(json::object(), "root") == 0);
}

TEST_CASE("slurmrestd's partitions give each MaxTime in minutes and the default partition") {
  const json partitions = json::parse(R"({"partitions": [
    {"name": "debug", "flags": ["default"], "max_time_limit": -1},
    {"name": "small", "flags": [], "max_time_limit": 5},
    {"name": "big", "flags": [], "max_time_limit": 60}]})");
  const PartitionTimes times = rest_partition_times(partitions);
  CHECK(times.default_partition == "debug");
  CHECK(times.max_minutes.count("debug") == 0);
  CHECK(times.max_minutes.at("small") == 5);
  CHECK(times.max_minutes.at("big") == 60);
}

TEST_CASE("slurmrestd v0.0.39 on: limits as {set, infinite, number}; unset or infinite: none") {
  const json associations = json::parse(R"({"associations": [
    {"account": "root", "user": "root", "default": {"qos": "normal"},
     "max": {"jobs": {"total": {"set": true, "infinite": false, "number": 7}}}},
    {"account": "root", "user": "open", "default": {"qos": "endless"},
     "max": {"jobs": {"total": {"set": false, "infinite": false, "number": 0}}}}]})");
  const json qos = json::parse(R"({"QOS": [
    {"name": "normal",
     "limits": {"max": {"jobs": {"per": {"user": {"set": true, "infinite": false, "number": 4}}}}}},
    {"name": "endless",
     "limits": {"max": {"jobs": {"per": {"user": {"set": true, "infinite": true, "number": 0}}}}}}]})");
  auto root = rest_submit_limit(associations, qos, "root");
  REQUIRE(root);
  CHECK(root->jobs == 4);
  CHECK(root->source == "MaxSubmitPU=4 of QOS normal");
  CHECK_FALSE(rest_submit_limit(associations, qos, "open"));
  const json partitions = json::parse(R"({"partitions": [
    {"name": "small", "flags": ["default"],
     "maximums": {"time": {"set": true, "infinite": false, "number": 5}}},
    {"name": "long", "maximums": {"time": {"set": true, "infinite": true, "number": 0}}}]})");
  const PartitionTimes times = rest_partition_times(partitions);
  CHECK(times.default_partition == "small");
  CHECK(times.max_minutes.at("small") == 5);
  CHECK(times.max_minutes.count("long") == 0);
}
