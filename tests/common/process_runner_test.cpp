#include "orchestrator/common/process_runner.hpp"

#include <doctest/doctest.h>

namespace scalestudy::common {
namespace {

TEST_CASE("run_process captures stdout, stderr and the exit code of an argv") {
  auto result = run_process({{"sh", "-c", "echo out; echo err >&2; exit 3"}, {}, 30'000});
  REQUIRE(result.is_ok());
  CHECK(result->stdout_text == "out\n");
  CHECK(result->stderr_text == "err\n");
  CHECK(result->exit_code == 3);
  CHECK_FALSE(result->succeeded());
  CHECK(command_error({"sh", "-c", "x"}, *result).message().find("err") != std::string::npos);
}

TEST_CASE("run_process applies environment overrides and kills a command past its timeout") {
  auto echoed = run_process({{"sh", "-c", "printf %s \"$PROBE\""}, {{"PROBE", "a b"}}, 30'000});
  REQUIRE(echoed.is_ok());
  CHECK(echoed->succeeded());
  CHECK(echoed->stdout_text == "a b");

  auto slow = run_process({{"sleep", "30"}, {}, 200});
  REQUIRE(slow.is_ok());
  CHECK(slow->timed_out);
  CHECK_FALSE(slow->succeeded());
}

TEST_CASE("a command not on PATH is an error; argv is described with quotes") {
  CHECK_FALSE(run_process({{"scalestudy-no-such-binary"}, {}, 30'000}).is_ok());
  CHECK(describe_command({"sbatch", "--parsable", "/x y/job.sbatch"}) ==
        "sbatch --parsable '/x y/job.sbatch'");
  CHECK(find_on_path("sh").has_value());
  CHECK_FALSE(find_on_path("scalestudy-no-such-binary").has_value());
}

}  // namespace
}  // namespace scalestudy::common
