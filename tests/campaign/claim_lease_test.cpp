#include "orchestrator/campaign/claim_lease.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "orchestrator/common/utc_time.hpp"

using namespace scalestudy;
using namespace scalestudy::campaign;
namespace fs = std::filesystem;

namespace {

// The claimed_at of run `run_id`, in seconds since the epoch.
double claimed_at(StudyState& state, const std::string& run_id) {
  auto value =
      state.database().query_value("SELECT claimed_at FROM runs WHERE run_id = ?", {run_id});
  REQUIRE(value.is_ok());
  REQUIRE(value->has_value());
  auto seconds = common::parse_utc_timestamp(sqlite::to_string(**value));
  REQUIRE(seconds.has_value());
  return *seconds;
}

void set_claimed_at(StudyState& state, const std::string& when) {
  REQUIRE(state.database().query("UPDATE runs SET claimed_at = ?", {when}).is_ok());
}

}  // namespace

TEST_CASE("a lease renews its claims while it lives, and only its own") {
  const fs::path path = fs::temp_directory_path() / "scalestudy_claim_lease.sqlite";
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
  auto state = StudyState::open(path.string());
  REQUIRE(state.is_ok());
  PlannedRun mine, theirs;
  mine.spec.run_id = "mine";
  theirs.spec.run_id = "theirs";
  REQUIRE(state->plan_runs({mine, theirs}).is_ok());
  const std::string old = "2020-01-01T00:00:00Z";
  {
    ClaimLease lease(path.string(), std::chrono::milliseconds(20));
    const std::set<std::string> only_mine = {"mine"};
    REQUIRE(state->claim_runs(3, RetryPolicy{}, lease.token(), false, &only_mine).is_ok());
    REQUIRE(state->claim_runs(3, RetryPolicy{}, "elsewhere:1:1").is_ok());
    set_claimed_at(*state, old);
    const double stale = *common::parse_utc_timestamp(old);
    for (int tries = 0; tries < 500 && claimed_at(*state, "mine") == stale; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(claimed_at(*state, "mine") > stale);
    CHECK(claimed_at(*state, "theirs") == stale);
  }
  // Ended: nothing renews any more.
  set_claimed_at(*state, old);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(claimed_at(*state, "mine") == *common::parse_utc_timestamp(old));
}

TEST_CASE("renewals that fail are counted and said, not ignored") {
  // No database to renew in: every renewal fails, and the lease says so.
  const fs::path missing = fs::temp_directory_path() / "scalestudy_no_such_dir" / "gone.sqlite";
  ClaimLease lease(missing.string(), std::chrono::milliseconds(5));
  for (int tries = 0; tries < 400 && lease.renewal_failures().empty(); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::string failures = lease.renewal_failures();
  CHECK(failures.rfind("claims not renewed ", 0) == 0);
  CHECK(failures.find("gone.sqlite") != std::string::npos);
}

TEST_CASE("a live submitter on this host keeps its claims however old") {
  // Its renewals failed for longer than the lease (a database locked for long): its process
  // is alive here, so its claim is not stale; another host's is after the lease.
  const fs::path path = fs::temp_directory_path() / "scalestudy_claim_live_pid.sqlite";
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
  auto state = StudyState::open(path.string());
  REQUIRE(state.is_ok());
  PlannedRun run;
  run.spec.run_id = "a";
  REQUIRE(state->plan_runs({run}).is_ok());
  const std::string live = make_claim_token();  // this process
  REQUIRE(state->claim_runs(3, RetryPolicy{}, live).is_ok());
  set_claimed_at(*state, "2020-01-01T00:00:00Z");
  auto other = state->claim_runs(3, RetryPolicy{}, "login2:4242:7");
  REQUIRE(other.is_ok());
  CHECK(other->empty());
  CHECK(state->record_submission({"a", "17"}, "slurm", live).is_ok());
}
