// A suite for skip_test.cpp to run: one case of each kind of skip, and one that passes.
#include <doctest/doctest.h>

#include "tests/support/skip.hpp"

TEST_CASE("probe: not applicable") {
  SKIP_NOT_APPLICABLE("no widget on this machine");
}

TEST_CASE("probe: prerequisite") {
  SKIP_UNLESS_INSTALLED("the widget package is missing");
}

TEST_CASE("probe: passes") {
  CHECK(1 + 1 == 2);
}
