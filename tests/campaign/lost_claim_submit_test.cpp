// A submitter that lost its claim (another submitter took it over) after its job was
// submitted cannot record the job: the job is cancelled, not left running unaccounted
// beside the run's next submission.
#include <doctest/doctest.h>

#include <filesystem>

#include "orchestrator/campaign/launch_prepared.hpp"
#include "orchestrator/campaign/study_state.hpp"

using namespace scalestudy;
using namespace scalestudy::campaign;
namespace fs = std::filesystem;

namespace {

// Submits each run as job 500, 501, ...; remembers what it was asked to cancel.
class CountingScheduler : public sched::Scheduler {
 public:
  std::string name() const override { return "slurm"; }
  Result<sched::PreparedRun> prepare(const RunSpec&, const sched::RunPreparation&) const override {
    return Status::error("not used");
  }
  Result<std::vector<sched::Submission>> submit(const std::vector<sched::PreparedRun>& runs,
                                                const sched::SubmitCallbacks& callbacks) override {
    std::vector<sched::Submission> submissions;
    for (const sched::PreparedRun& run : runs) {
      submissions.push_back({run.spec.run_id, std::to_string(next_job_++)});
      if (callbacks.submitted) callbacks.submitted(submissions.back());
    }
    return submissions;
  }
  Result<std::map<std::string, JobStatus>> poll(const std::vector<std::string>&) override {
    return std::map<std::string, JobStatus>{};
  }
  Status cancel(const std::vector<std::string>& job_ids) override {
    cancelled.insert(cancelled.end(), job_ids.begin(), job_ids.end());
    return Status::ok();
  }
  std::vector<std::string> cancelled;

 private:
  int next_job_ = 500;
};

}  // namespace

TEST_CASE("a job whose submission cannot be recorded (its claim lost) is cancelled") {
  const fs::path path = fs::temp_directory_path() / "scalestudy_lost_claim.sqlite";
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
  auto state = StudyState::open(path.string());
  REQUIRE(state.is_ok());
  std::vector<PlannedRun> planned(2);
  planned[0].spec.run_id = "kept";
  planned[1].spec.run_id = "lost";
  REQUIRE(state->plan_runs(planned).is_ok());
  const std::set<std::string> kept = {"kept"}, lost = {"lost"};
  REQUIRE(state->claim_runs(3, RetryPolicy{}, "login1:1:1", false, &kept).is_ok());
  // "lost" was claimed by another submitter meanwhile.
  REQUIRE(state->claim_runs(3, RetryPolicy{}, "login2:2:2", false, &lost).is_ok());
  std::vector<sched::PreparedRun> prepared(2);
  prepared[0].spec.run_id = "kept";
  prepared[1].spec.run_id = "lost";
  CountingScheduler scheduler;
  auto launched = launch_prepared(*state, scheduler, prepared, "login1:1:1", {});
  REQUIRE_FALSE(launched.is_ok());
  const std::string message = launched.status().message();
  INFO(message);
  CHECK(message.find("run lost: job 501 could not be recorded, so it was cancelled") !=
        std::string::npos);
  CHECK(scheduler.cancelled == std::vector<std::string>{"501"});
  auto runs = state->runs();
  REQUIRE(runs.is_ok());
  for (const RunRecord& run : *runs) {
    CAPTURE(run.run_id);
    CHECK(run.job_id == (run.run_id == "kept" ? "500" : ""));
  }
}
