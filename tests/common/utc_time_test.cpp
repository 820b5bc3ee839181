#include "orchestrator/common/utc_time.hpp"

#include <doctest/doctest.h>

#include <ctime>

using scalestudy::common::format_utc;
using scalestudy::common::parse_utc_timestamp;
using scalestudy::common::utc_iso8601;
using scalestudy::common::utc_now_iso8601;

TEST_CASE("parse_utc_timestamp reads the databases' ISO-8601 UTC times") {
  CHECK(*parse_utc_timestamp("1970-01-01T00:00:00Z") == doctest::Approx(0));
  CHECK(*parse_utc_timestamp("1970-01-02T01:00:30.250Z") == doctest::Approx(86400 + 3600 + 30.25));
  CHECK_FALSE(parse_utc_timestamp("2025-01-01 00:00:00").has_value());
  CHECK_FALSE(parse_utc_timestamp("").has_value());
}

TEST_CASE("epoch seconds as UTC, in ISO-8601 or another strftime format") {
  CHECK(utc_iso8601(86400 + 3600 + 30) == "1970-01-02T01:00:30Z");
  CHECK(*parse_utc_timestamp(utc_iso8601(1767261630)) == doctest::Approx(1767261630));
  CHECK(format_utc(0, "%Y-%m-%d %H:%M UTC") == "1970-01-01 00:00 UTC");
}

TEST_CASE("utc_now_iso8601 writes what parse_utc_timestamp reads, to the second") {
  const double before = static_cast<double>(std::time(nullptr));
  const std::string now = utc_now_iso8601();
  CHECK(now.size() == 20);
  CHECK(now.back() == 'Z');
  REQUIRE(parse_utc_timestamp(now).has_value());
  CHECK(*parse_utc_timestamp(now) >= before);
  CHECK(*parse_utc_timestamp(now) <= static_cast<double>(std::time(nullptr)));
}
