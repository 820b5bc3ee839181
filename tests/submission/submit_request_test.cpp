// Submitting as a library call: a study submitted through submission::make_submit_sessions
// and submit_sessions from a plain SubmitRequest, no command line, on the local executor
// (the sessions, their reports and the study database's runs and recorded choices), a dry
// run that claims nothing, and requests refused as values with their messages.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/submission/recorded_choices.hpp"
#include "orchestrator/submission/submit_sessions.hpp"
#include "orchestrator/submission/system_choice.hpp"
#include "tests/support/cli_test_support.hpp"

using namespace scalestudy;
using namespace scalestudy::submission;
using scalestudy::testing::scratch_dir;
using scalestudy::testing::write_fake_workload;
namespace fs = std::filesystem;

namespace {

// A study of two one-rank runs of the fake workload, the second failing, in `dir`; and a
// request for it on the local scheduler with results under dir/results.
SubmitRequest local_request(const fs::path& dir) {
  const std::string workload = write_fake_workload(dir);
  std::ofstream(dir / "study.yaml") << "study: library\nworkload: {binary: " << workload
                                    << "}\nmatrix: {fail: [0, 1]}\nmax_attempts: 2\n";
  auto study = load_study((dir / "study.yaml").string(), system_choice({}));
  REQUIRE_MESSAGE(study.is_ok(), study.status().message());
  SubmitRequest request;
  request.study = std::move(*study);
  request.results_dir = (dir / "results").string();
  request.scheduler = "local";
  request.scheduler_options = {{"--max-parallel", "2"}};
  return request;
}

// Each run's state in the study database at `path`.
std::map<std::string, std::string> run_states(const std::string& path) {
  auto state = campaign::StudyState::open_existing(path);
  REQUIRE_MESSAGE(state.is_ok(), state.status().message());
  auto runs = state->runs();
  REQUIRE(runs.is_ok());
  std::map<std::string, std::string> states;
  for (const campaign::RunRecord& run : *runs) states[run.run_id] = run.state;
  return states;
}

}  // namespace

TEST_CASE("a study submitted through a request runs on the local executor and is recorded") {
  const fs::path dir = scratch_dir("submission_library");
  SubmitRequest request = local_request(dir);
  request.campaign = "nightly";
  std::vector<std::string> logged;
  request.log = [&logged](const std::string& line) { logged.push_back(line); };

  SubmitSetup setup = make_submit_sessions(request);
  REQUIRE_MESSAGE(!setup.failure, setup.failure->status.message());
  // The fake workload cannot describe its flags: noted, not refused.
  REQUIRE(setup.params.notes.size() == 1);
  CHECK(setup.params.notes[0].find("parameters passed unchecked") != std::string::npos);
  REQUIRE(setup.sessions.size() == 1);
  const SubmitSession& session = setup.sessions.front();
  CHECK(session.scheduler_name == "local");
  CHECK(session.system.empty());
  CHECK(session.plan.campaign == "nightly");
  CHECK(session.plan.runs.size() == 2);
  CHECK(session.options.scheduler_options == std::vector<std::string>{"--campaign", "nightly",
                                                                      "--max-parallel", "2",
                                                                      "--scheduler", "local"});

  auto reports = submit_sessions(setup.sessions);
  REQUIRE_MESSAGE(reports.is_ok(), reports.status().message());
  REQUIRE(reports->size() == 1);
  const campaign::SubmitReport& report = reports->front();
  const std::string database = (dir / "results" / "library@nightly.sqlite").string();
  CHECK(report.database_path == database);
  CHECK(report.submitted.size() == 2);
  CHECK(report.errors.empty());
  CHECK(report.would_submit.empty());
  CHECK(!logged.empty());

  // The local executor ran both inside the submit: one completed, one failed with an
  // attempt left.
  std::map<std::string, std::string> states = run_states(database);
  REQUIRE(states.size() == 2);
  int completed = 0, failed = 0;
  for (const auto& [run_id, state] : states) {
    completed += state == "COMPLETED";
    failed += state == "FAILED";
    CHECK(fs::exists(dir / "results" / "library@nightly" / "runs" / run_id / "executions.txt"));
  }
  CHECK(completed == 1);
  CHECK(failed == 1);

  // The choices recorded for later waves ask for the same request again.
  auto state = campaign::StudyState::open_existing(database);
  REQUIRE(state.is_ok());
  auto choices = state->submit_choices();
  REQUIRE(choices.is_ok());
  REQUIRE(choices->has_value());
  CHECK((*choices)->scheduler == "local");
  auto again = request_from_recorded_choices((*choices)->options);
  REQUIRE(again.is_ok());
  CHECK(again->scheduler == std::optional<std::string>("local"));
  CHECK(again->campaign == std::optional<std::string>("nightly"));
  CHECK(again->scheduler_options == request.scheduler_options);
  CHECK_FALSE(again->packed);

  // A second submit retries the failed run only; the completed one is skipped.
  SubmitSetup retry = make_submit_sessions(request);
  REQUIRE(!retry.failure);
  auto retried = submit_sessions(retry.sessions);
  REQUIRE(retried.is_ok());
  CHECK(retried->front().submitted.size() == 1);
  CHECK(retried->front().completed.size() == 1);
}

TEST_CASE("a dry run through a request lists the runs and submits nothing") {
  const fs::path dir = scratch_dir("submission_library_dry_run");
  SubmitRequest request = local_request(dir);
  request.dry_run = true;
  SubmitSetup setup = make_submit_sessions(request);
  REQUIRE(!setup.failure);
  REQUIRE(setup.sessions.size() == 1);
  CHECK(setup.sessions.front().options.dry_run);
  auto reports = submit_sessions(setup.sessions);
  REQUIRE(reports.is_ok());
  CHECK(reports->front().would_submit.size() == 2);
  CHECK(reports->front().submitted.empty());
  for (const auto& [run_id, state] : run_states((dir / "results" / "library.sqlite").string())) {
    CHECK_MESSAGE(state == "PLANNED", run_id);
  }
}

TEST_CASE("a request that cannot be submitted is refused as a value naming why") {
  const fs::path dir = scratch_dir("submission_library_refused");
  SubmitRequest request = local_request(dir);

  SUBCASE("an unknown scheduler") {
    request.scheduler = "nosuch";
    SubmitSetup setup = make_submit_sessions(request);
    REQUIRE(setup.failure.has_value());
    CHECK(setup.failure->kind == SubmitFailure::Kind::kUnavailable);
    CHECK(setup.failure->status.message().find("unknown scheduler 'nosuch' (known: local") == 0);
    CHECK(setup.sessions.empty());
  }
  SUBCASE("a scheduler option out of range") {
    request.scheduler_options = {{"--max-parallel", "0"}};
    SubmitSetup setup = make_submit_sessions(request);
    REQUIRE(setup.failure.has_value());
    CHECK(setup.failure->kind == SubmitFailure::Kind::kBadRequest);
    CHECK(setup.failure->status.message() ==
          "--max-parallel and --max-slots take positive numbers");
  }
  SUBCASE("a GPU-hour budget the study's requests exceed") {
    request.max_gpu_hours = "1";
    for (RunSpec& run : request.study.runs) {
      run.slurm.gpus_per_node = 1;
      run.slurm.time_limit_minutes = 60;
    }
    SubmitSetup setup = make_submit_sessions(request);
    REQUIRE(setup.failure.has_value());
    CHECK(setup.failure->kind == SubmitFailure::Kind::kRefused);
    const std::string& message = setup.failure->status.message();
    CHECK(message.find("over budget by ") == 0);
    CHECK(message.find("--max-gpu-hours allows") != std::string::npos);
    CHECK(message.find("nothing was submitted") != std::string::npos);
  }
  // Nothing was recorded: no database was made.
  CHECK_FALSE(fs::exists(dir / "results" / "library.sqlite"));
}

TEST_CASE("a GPU-hour cap that is no number is a bad request, after the study's parameters") {
  const fs::path dir = scratch_dir("submission_library_cap");
  SubmitRequest request = local_request(dir);
  request.max_gpu_hours = "lots";
  SUBCASE("valid parameters: the cap is refused") {
    SubmitSetup setup = make_submit_sessions(request);
    REQUIRE(setup.failure.has_value());
    CHECK(setup.failure->kind == SubmitFailure::Kind::kBadRequest);
    CHECK(setup.failure->status.message() == "--max-gpu-hours takes a number ≥ 0, got 'lots'");
  }
  SUBCASE("invalid parameters are reported first, as the command line always did") {
    std::ofstream(dir / "bad.yaml")
        << "study: bad\nworkload: {binary: " << scalestudy::testing::write_describing_workload(dir)
        << ", epochs: 0}\n";
    auto study = load_study((dir / "bad.yaml").string(), system_choice({}));
    REQUIRE_MESSAGE(study.is_ok(), study.status().message());
    request.study = std::move(*study);
    SubmitSetup setup = make_submit_sessions(request);
    REQUIRE(setup.failure.has_value());
    CHECK(setup.failure->kind == SubmitFailure::Kind::kInvalidParams);
    CHECK(setup.failure->status.message().find("--epochs") != std::string::npos);
  }
}

TEST_CASE("recorded choices that name no submit option are an error") {
  auto request = request_from_recorded_choices({"--max-parallel", "2", "--frobnicate"});
  REQUIRE_FALSE(request.is_ok());
  CHECK(request.status().message() == "unknown option --frobnicate");
  auto near = request_from_recorded_choices({"--schedular", "local"});
  REQUIRE_FALSE(near.is_ok());
  CHECK(near.status().message() == "unknown option --schedular (did you mean --scheduler?)");
  auto cut = request_from_recorded_choices({"--scheduler"});
  REQUIRE_FALSE(cut.is_ok());
  CHECK(cut.status().message() == "option --scheduler needs a value");
}
