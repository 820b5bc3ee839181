// The results site takes each study's name from its database's study row: a name that is no
// study name (a path such as "../../escape") is left out with a warning, never written to.
#include <doctest/doctest.h>

#include <filesystem>

#include "harness/core/sqlite.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "orchestrator/results/site/results_site.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;
namespace fs = std::filesystem;

TEST_CASE("a study database whose study row names a path is left out of the site") {
  StudyFixture study("named", "strong");
  study.add_run(FixtureRun{"aaaa000000000001"});
  REQUIRE(ingest_study(study.db_path()).is_ok());
  const fs::path hostile = fs::path(study.dir()) / "hostile.sqlite";
  fs::copy_file(study.db_path(), hostile);
  {
    auto db = sqlite::Database::open(hostile.string());
    REQUIRE(db.is_ok());
    REQUIRE(db->exec("UPDATE study SET name = '../../escape'").is_ok());
  }
  const fs::path site = fs::path(study.dir()) / "site";
  auto outcome = write_results_site({study.dir(), site.string()}, site_databases(study.dir()));
  REQUIRE_MESSAGE(outcome.is_ok(), outcome.status().message());
  CHECK(fs::exists(site / "studies" / "named"));
  CHECK_FALSE(fs::exists(fs::path(study.dir()) / "escape"));
  std::string warnings;
  for (const std::string& warning : outcome->warnings) warnings += warning + "\n";
  INFO(warnings);
  CHECK(warnings.find("'../../escape', which is no study name") != std::string::npos);
}
