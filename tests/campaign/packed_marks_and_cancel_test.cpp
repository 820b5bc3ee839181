// A packed run's mark that cannot be written (its folder another owner's, a full disk) is
// an error the command reports and the run's state shows: a cancel leaves the run as it is
// and says so, and a run whose recorded mark cannot be written is failed rather than left
// for its allocation to hand back, attempt after attempt. Paths below a regular file fail
// for root as well. A packed allocation whose runs were all cancelled is cancelled too
// (a stand-in scancel on PATH says whether it was).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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

// A study database with `runs` submitted in packed allocation 90; the folder of one named
// "unmarkable" is a regular file.
PackedStudy packed_study(const char* name,
                         const std::vector<std::string>& runs = {"ok", "unmarkable"}) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto state = StudyState::open((dir / "study.sqlite").string());
  REQUIRE(state.is_ok());
  std::vector<PlannedRun> planned;
  for (const std::string& run_id : runs) {
    if (run_id == "unmarkable") {
      std::ofstream(dir / run_id) << "not a folder\n";
    } else {
      fs::create_directories(dir / run_id);
    }
    PlannedRun run;
    run.spec.run_id = run_id;
    run.spec.study = "demo";
    run.out_dir = (dir / run_id).string();
    planned.push_back(run);
  }
  REQUIRE(state->plan_runs(planned).is_ok());
  REQUIRE(state->claim_runs(static_cast<int>(runs.size()), RetryPolicy{}, "t:1:x").is_ok());
  for (const std::string& run_id : runs) {
    REQUIRE(state->record_submission({run_id, "90+" + run_id}, "slurm", "t:1:x").is_ok());
  }
  return {dir, std::move(*state)};
}

// A stand-in scancel first on PATH for the scope's life, writing its arguments to `log`.
class StandInScancel {
 public:
  explicit StandInScancel(const fs::path& dir) : log_(dir / "scancel.log"), path_(getenv("PATH")) {
    fs::create_directories(dir / "bin");
    std::ofstream(dir / "bin" / "scancel")
        << "#!/bin/sh\necho \"$@\" >>'" << log_.string() << "'\n";
    fs::permissions(dir / "bin" / "scancel", fs::perms::owner_all);
    setenv("PATH", ((dir / "bin").string() + ":" + path_).c_str(), 1);
  }
  ~StandInScancel() { setenv("PATH", path_.c_str(), 1); }
  std::string calls() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  fs::path log_;
  std::string path_;
};

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
  CHECK(message.find("cannot write the mark: ") != std::string::npos);
  CHECK(message.find("unmarkable/packed-90.dropped: ") != std::string::npos);
  CHECK(fs::exists(study.dir / "ok" / "packed-90.dropped"));
  CHECK(marked_run(study.state, "ok").state == "CANCELLED");
  CHECK(marked_run(study.state, "unmarkable").state == "SUBMITTED");
}

TEST_CASE("cancelling every run of a packed allocation cancels the allocation") {
  PackedStudy study = packed_study("scalestudy_cancel_allocation", {"a", "b", "c"});
  StandInScancel scancel(study.dir);
  REQUIRE(
      study.state.record_job_status("c", "90+c", {common::JobState::kCompleted, 0, ""}).is_ok());
  // One run of two still to run: the allocation goes on for the other.
  auto one = cancel_study(study.state, {}, std::string("a"));
  REQUIRE(one.is_ok());
  CHECK(*one == std::vector<std::string>{"a"});
  CHECK(scancel.calls().empty());
  // The last one: nothing is left for it to run (c completed in it).
  auto last = cancel_study(study.state, {}, std::string("b"));
  REQUIRE(last.is_ok());
  CHECK(scancel.calls() == "90\n");
}

TEST_CASE("an allocation with a run the cancel could not mark goes on") {
  PackedStudy study = packed_study("scalestudy_cancel_allocation_unmarkable");
  StandInScancel scancel(study.dir);
  CHECK_FALSE(cancel_study(study.state, {}, std::nullopt).is_ok());
  CHECK(scancel.calls().empty());
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
  CHECK(run.reason.find("cannot write the mark: ") != std::string::npos);
  CHECK(run.reason.find("unmarkable/packed-90.recorded: ") != std::string::npos);
}
