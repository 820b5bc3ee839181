// The main of every doctest suite: doctest's own, except that a binary all of whose test
// cases skipped exits with kSkipExitCode, so that CTest counts it as skipped, not passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "tests/support/skip.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int failed = context.run();
  if (failed != 0 || context.shouldExit()) return failed;
  scalestudy::testing::SkipTally tally = scalestudy::testing::skip_tally();
  if (tally.cases_run > 0 && tally.cases_skipped == tally.cases_run) {
    return scalestudy::testing::kSkipExitCode;
  }
  return 0;
}
