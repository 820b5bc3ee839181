#include <doctest/doctest.h>

#include "orchestrator/study/references.hpp"
#include "orchestrator/study/scalar_values.hpp"
#include "orchestrator/study/where_expression.hpp"

namespace scalestudy {
namespace {

TEST_CASE("SLURM time limits") {
  CHECK(parse_time_limit_minutes("90") == 90);
  CHECK(parse_time_limit_minutes("10:30") == 11);  // MM:SS, seconds round up
  CHECK(parse_time_limit_minutes("01:30:00") == 90);
  CHECK(parse_time_limit_minutes("2-00") == 2 * 24 * 60);
  CHECK(parse_time_limit_minutes("1-02:03") == 24 * 60 + 2 * 60 + 3);
  CHECK(parse_time_limit_minutes("1-02:03:04") == 24 * 60 + 2 * 60 + 4);
  for (const char* bad : {"", "1:2:3:4", "00:61:00", "ab", "1-", "-5", "1h", "10:60"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_time_limit_minutes(bad).has_value());
  }
  CHECK(format_time_limit(90) == "01:30:00");
  CHECK(format_time_limit(24 * 60 + 61) == "1-01:01:00");
}

TEST_CASE("memory sizes") {
  CHECK(parse_memory_mb("4000") == 4000);
  CHECK(parse_memory_mb("4000M") == 4000);
  CHECK(parse_memory_mb("16G") == 16384);
  CHECK(parse_memory_mb("16GB") == 16384);
  CHECK(parse_memory_mb("1T") == 1024 * 1024);
  CHECK(parse_memory_mb("1536K") == 2);
  for (const char* bad : {"", "G", "16Q", "1.5G", "-1G"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_memory_mb(bad).has_value());
  }
  CHECK(format_memory(16384) == "16G");
  CHECK(format_memory(4000) == "4000M");
}

TEST_CASE("canonical scalars") {
  CHECK(canonical_scalar("0.10", false) == "0.1");
  CHECK(canonical_scalar("1e-1", false) == "0.1");
  CHECK(canonical_scalar("+007", false) == "7");
  CHECK(canonical_scalar("True", false) == "true");
  CHECK(canonical_scalar("0.10", true) == "0.10");
  CHECK(canonical_scalar("fp32", false) == "fp32");
}

TEST_CASE("where expressions") {
  std::vector<std::string> names = {"world_size", "precision"};
  auto eval = [&](const char* text, std::vector<std::string> values) {
    auto expression = WhereExpression::parse(text, names);
    INFO(expression.status().message());
    REQUIRE(expression.is_ok());
    return expression->evaluate(values);
  };
  CHECK(eval("world_size >= 2", {"4", "fp32"}));
  CHECK_FALSE(eval("world_size >= 2", {"1", "fp32"}));
  CHECK(eval("world_size < 10", {"9", "fp32"}));  // numbers compare as numbers, not text
  CHECK(eval("precision != 'fp32' || world_size == 1", {"1", "fp32"}));
  CHECK_FALSE(eval("not (precision == \"fp32\") and world_size > 0", {"1", "fp32"}));
  CHECK(eval("workload.precision == 'bf16'", {"1", "bf16"}));
  CHECK(eval("!(world_size == 3)", {"1", "bf16"}));
  for (const char* bad : {"world_size", "world_size >= ", "(world_size > 1", "fp32 == precision",
                          "precision == 'fp32", "world_size > 1 extra", "$(touch x) == 1"}) {
    CAPTURE(bad);
    CHECK_FALSE(WhereExpression::parse(bad, names).is_ok());
  }
}

TEST_CASE("reference scanning") {
  auto lookup = [](const std::string& name) -> Result<std::string> {
    if (name == "a") return std::string("A");
    return Status::error("undefined " + name);
  };
  CHECK(*substitute_references("x${a}y${a}", lookup) == "xAyA");
  CHECK(*substitute_references("$5 $${a} $a", lookup) == "$5 ${a} $a");
  CHECK_FALSE(substitute_references("${b}", lookup).is_ok());
  CHECK_FALSE(substitute_references("${a", lookup).is_ok());
  CHECK_FALSE(referenced_names("${}").is_ok());
}

}  // namespace
}  // namespace scalestudy
