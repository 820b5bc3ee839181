// A study database written before secret-looking env values were refused may hold one in
// runs.spec_json: compare and history (and the site that publishes them) show it as a
// placeholder, so neither the old nor the rotated value is printed.
#include <doctest/doctest.h>

#include "harness/core/sqlite.hpp"
#include "orchestrator/results/compare/provenance_diff.hpp"
#include "orchestrator/results/ingest/ingest.hpp"
#include "tests/results/fixture.hpp"

using namespace scalestudy;
using namespace scalestudy::results;
using namespace scalestudy::results::testing;

TEST_CASE("a stored secret-named env value is never shown by compare") {
  StudyFixture study("secrets", "strong");
  study.add_run(FixtureRun{"aaaa000000000001"});
  study.add_run(FixtureRun{"aaaa000000000002"});
  REQUIRE(ingest_study(study.db_path()).is_ok());
  auto db = sqlite::Database::open(study.db_path());
  REQUIRE(db.is_ok());
  for (const auto& [run_id, token] : {std::pair{"aaaa000000000001", "old-token-value"},
                                      std::pair{"aaaa000000000002", "new-token-value"}}) {
    REQUIRE(db->exec(std::string("UPDATE runs SET spec_json = json_set(spec_json, '$.env', "
                                 "json('{\"HF_TOKEN\": \"") +
                     token + "\", \"NCCL_DEBUG\": \"" + token + "\"}')) WHERE run_id = '" + run_id +
                     "'")
                .is_ok());
  }
  auto provenance = load_run_provenance(*db, {"aaaa000000000001", "aaaa000000000002"});
  REQUIRE(provenance.is_ok());
  const ProvenanceValues& a = provenance->at("aaaa000000000001");
  const ProvenanceValues& b = provenance->at("aaaa000000000002");
  CHECK(a.at("env.HF_TOKEN") == std::set<std::string>{"(secret, not shown)"});
  CHECK(a.at("env.NCCL_DEBUG") == std::set<std::string>{"old-token-value"});
  for (const auto& difference : diff_provenance(a, b)) {
    CAPTURE(difference.key);
    CHECK(difference.key != "env.HF_TOKEN");
  }
}
