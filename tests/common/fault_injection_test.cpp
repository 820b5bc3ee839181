#include "orchestrator/common/fault_injection.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using scalestudy::common::FaultInjector;

TEST_CASE("SCALESTUDY_FAULT values: a known point and an optional pass count") {
  CHECK_FALSE(FaultInjector().armed());
  auto first = FaultInjector::parse("submit.claimed");
  REQUIRE(first.is_ok());
  CHECK(first->armed());
  CHECK(FaultInjector::parse("ingest.run_written:3").is_ok());
  auto unknown = FaultInjector::parse("submit.claimd");
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message().find("known: submit.claimed") != std::string::npos);
  for (const char* bad : {"submit.claimed:0", "submit.claimed:", "submit.claimed:x"}) {
    CAPTURE(bad);
    CHECK_FALSE(FaultInjector::parse(bad).is_ok());
  }
}

TEST_CASE("an armed point kills the process on its n-th pass, and only there") {
  int marks[2];
  REQUIRE(pipe(marks) == 0);
  pid_t child = fork();
  if (child == 0) {
    FaultInjector faults = *FaultInjector::parse("submit.recorded:2");
    faults.reached("submit.claimed");   // another point: passes
    faults.reached("submit.recorded");  // first pass: survives
    (void)!write(marks[1], "1", 1);
    faults.reached("submit.recorded");  // second pass: SIGKILL
    (void)!write(marks[1], "2", 1);
    _exit(0);
  }
  close(marks[1]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  char seen[4] = {};
  CHECK(read(marks[0], seen, sizeof(seen)) == 1);
  CHECK(seen[0] == '1');
  close(marks[0]);
}
