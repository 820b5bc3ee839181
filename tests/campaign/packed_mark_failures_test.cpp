// A packed run's mark that cannot be written (its folder another owner's, a full disk) is
// an error the command reports and the run's state shows: a cancel leaves the run as it is
// and says so, and a run whose recorded mark cannot be written is failed rather than left
// for its allocation to hand back, attempt after attempt. Paths below a regular file fail
// for root as well.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/campaign/submit.hpp"
#include "orchestrator/campaign/wait.hpp"

using namespace scalestudy;
using namespace scalestudy::campaign;
namespace fs = std::filesystem;

namespace {

struct PackedStudy {
  fs::path dir;
  StudyState state;
};

// A study database with runs `ok` and `unmarkable` submitted in packed allocation 90; the
// second's folder is a regular file.
PackedStudy packed_study(const char* name) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "ok");
  std::ofstream(dir / "unmarkable") << "not a folder\n";
  auto state = StudyState::open((dir / "study.sqlite").string());
  REQUIRE(state.is_ok());
  std::vector<PlannedRun> planned;
  for (const char* run_id : {"ok", "unmarkable"}) {
    PlannedRun run;
    run.spec.run_id = run_id;
    run.spec.study = "demo";
    run.out_dir = (dir / run_id).string();
    planned.push_back(run);
  }
  REQUIRE(state->plan_runs(planned).is_ok());
  REQUIRE(state->claim_runs(2, "t:1:x").is_ok());
  for (const char* run_id : {"ok", "unmarkable"}) {
    REQUIRE(
        state->record_submission({run_id, std::string("90+") + run_id}, "slurm", "t:1:x").is_ok());
  }
  return {dir, std::move(*state)};
}

RunRecord marked_run(StudyState& state, const std::string& run_id) {
  auto runs = state.runs();
  REQUIRE(runs.is_ok());
  for (const auto& run : *runs) {
    if (run.run_id == run_id) return run;
  }
  FAIL("no run " << run_id);
  return {};
}

}  // namespace

TEST_CASE("a cancel whose dropped mark cannot be written says so and leaves the run as it is") {
  PackedStudy study = packed_study("scalestudy_cancel_unmarkable");
  auto cancelled = cancel_study(study.state, {}, std::nullopt);
  REQUIRE_FALSE(cancelled.is_ok());
  const std::string message = cancelled.status().message();
  INFO(message);
  CHECK(message.find("cancelled 1 run(s); ok;") == 0);
  CHECK(message.find("not cancelled, still running or queued: run unmarkable (") !=
        std::string::npos);
  CHECK(message.find("unmarkable/packed-90.dropped: cannot write the mark") != std::string::npos);
  CHECK(fs::exists(study.dir / "ok" / "packed-90.dropped"));
  CHECK(marked_run(study.state, "ok").state == "CANCELLED");
  CHECK(marked_run(study.state, "unmarkable").state == "SUBMITTED");
}

TEST_CASE("a run whose recorded mark cannot be written fails with why, instead of waiting") {
  PackedStudy study = packed_study("scalestudy_reconcile_unmarkable");
  fs::remove_all(study.dir / "ok");  // only the unmarkable run in flight: nothing to poll
  std::ofstream(study.dir / "ok") << "gone\n";
  REQUIRE(
      study.state.record_job_status("ok", "90+ok", {common::JobState::kCompleted, 0, ""}).is_ok());
  REQUIRE(reconcile_study(study.state, {}).is_ok());
  const RunRecord run = marked_run(study.state, "unmarkable");
  CHECK(run.state == "FAILED");
  CHECK(run.reason.find("not started: ") == 0);
  CHECK(run.reason.find("unmarkable/packed-90.recorded: cannot write the mark") !=
        std::string::npos);
}
