#include "orchestrator/campaign/campaign_name.hpp"

#include <doctest/doctest.h>

#include "orchestrator/campaign/study_state.hpp"
#include "tests/support/cli_test_support.hpp"

using namespace scalestudy::campaign;

TEST_CASE("a campaign is stored beside its study, the default one as the study itself") {
  CHECK(campaign_storage_name("ladder", "") == "ladder");
  CHECK(campaign_storage_name("ladder", "default") == "ladder");
  CHECK(campaign_storage_name("ladder", "nightly-42") == "ladder@nightly-42");
}

TEST_CASE("campaign names are checked, auto and default are reserved") {
  CHECK(check_campaign_name("2026-11-27.nccl_2.21"));
  for (const char* bad : {"", "-x", ".x", "a/b", "a@b", "a b", "auto", "default"}) {
    CAPTURE(bad);
    CHECK_FALSE(check_campaign_name(bad));
  }
  CHECK_FALSE(check_campaign_name(std::string(65, 'a')));
}

TEST_CASE("auto names a campaign from the date and the workload's commit, else its build") {
  CHECK(auto_campaign_name("20261127", "3cc7183a9f00", "build-id-abcdef0123") ==
        "20261127-3cc7183-abcdef01");
  CHECK(auto_campaign_name("20261127", "unknown", "build-id-abcdef0123") == "20261127-abcdef01");
  CHECK(auto_campaign_name("20261127", "", "sha256-99aa") == "20261127-99aa");
  CHECK(auto_campaign_name("20261127", "", "") == "20261127-unknown");
}

TEST_CASE("a study database records its campaign once") {
  const auto dir = scalestudy::testing::scratch_dir("campaign_record");
  const std::string path = (dir / "s@c1.sqlite").string();
  {
    auto state = StudyState::open(path);
    REQUIRE(state);
    REQUIRE(state->save_campaign("c1"));
    REQUIRE(state->save_campaign("c2"));  // kept: the first record
  }
  auto db = scalestudy::sqlite::Database::open(path, scalestudy::sqlite::OpenMode::kReadOnly);
  REQUIRE(db);
  auto rows = db->query("SELECT name, created_at FROM campaign");
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  CHECK(scalestudy::sqlite::to_string((*rows)[0][0]) == "c1");
  CHECK(scalestudy::sqlite::to_string((*rows)[0][1]).size() >= 19);
}
