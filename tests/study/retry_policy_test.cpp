// `policy:` reaches the study as its retries by failure class (docs/failures.md).
#include <doctest/doctest.h>

#include "orchestrator/study/study.hpp"

namespace scalestudy {

TEST_CASE("policy: retries by class, the node bound and flagged nodes; defaults without it") {
  auto plain = load_study_text("study: s\nworkload: {binary: /bin/true}\n", "plain.yaml");
  REQUIRE(plain.is_ok());
  CHECK(plain->retry.program_retries == 0);
  CHECK(plain->retry.setup_retries == 0);
  CHECK(plain->retry.time_retries == 1);
  CHECK(plain->retry.hang_retries == 1);
  CHECK(plain->retry.max_node_failures == 3);
  CHECK_FALSE(plain->retry.exclude_flagged_nodes);
  CHECK_FALSE(plain->retry.hang_after_s.has_value());  // the launcher's default rule

  auto asked = load_study_text(
      "study: s\nworkload: {binary: /bin/true}\nmax_attempts: 4\npolicy:\n"
      "  max_node_failures: 5\n  exclude_flagged_nodes: true\n"
      "  retry: {program: 2, setup: 1, time: 0, hang: 3}\n",
      "asked.yaml");
  INFO(asked.status().message());
  REQUIRE(asked.is_ok());
  CHECK(asked->max_attempts == 4);
  CHECK(asked->retry.max_node_failures == 5);
  CHECK(asked->retry.exclude_flagged_nodes);
  CHECK(asked->retry.program_retries == 2);
  CHECK(asked->retry.setup_retries == 1);
  CHECK(asked->retry.time_retries == 0);
  CHECK(asked->retry.hang_retries == 3);
}

TEST_CASE("policy.hang_after: seconds, or 0 / off for no watchdog; refused below 0") {
  auto load = [](const std::string& value) {
    return load_study_text(
        "study: s\nworkload: {binary: /bin/true}\npolicy: {hang_after: " + value + "}\n",
        "hang.yaml");
  };
  auto fixed = load("900");
  REQUIRE(fixed.is_ok());
  CHECK(fixed->retry.hang_after_s == 900);
  for (const char* off : {"0", "off"}) {
    CAPTURE(off);
    auto watched = load(off);
    REQUIRE(watched.is_ok());
    CHECK(watched->retry.hang_after_s == 0);
  }
  auto negative = load("-5");
  REQUIRE_FALSE(negative.is_ok());
  CHECK(negative.status().message().find("hang.yaml:3:22: field 'policy.hang_after': must be at "
                                         "least 0, got -5") != std::string::npos);
  CHECK_FALSE(load("soon").is_ok());
}

}  // namespace scalestudy
