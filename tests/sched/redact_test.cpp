// redact(): secrets out of error messages, including a secret that occurs inside its own
// placeholder (SLURM_JWT=k with "<token>"), which once looped forever.
#include "orchestrator/sched/redact.hpp"

#include <doctest/doctest.h>

using scalestudy::sched::redact;

TEST_CASE("redact replaces every occurrence of the secret") {
  CHECK(redact("GET /jobs?t=s3cr3t failed: s3cr3t", "s3cr3t", "<token>") ==
        "GET /jobs?t=<token> failed: <token>");
  CHECK(redact("no secret here", "s3cr3t", "<token>") == "no secret here");
  CHECK(redact("keep", "", "<token>") == "keep");
}

TEST_CASE("redact ends when the secret is part of the placeholder") {
  CHECK(redact("token k rejected", "k", "<token>") == "to<token>en <token> rejected");
  CHECK(redact("kk", "k", "<token>") == "<token><token>");
  CHECK(redact("<token>", "<token>", "<token>") == "<token>");
}
