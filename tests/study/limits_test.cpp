// Small study files that used to exhaust the machine: a YAML alias bomb, deep nesting, a
// matrix of a billion runs, a hundred thousand keys. Each is refused (or read) quickly
// with a message that says what and where.
#include <doctest/doctest.h>

#include <string>

#include "orchestrator/study/study.hpp"

namespace scalestudy {
namespace {

const char kStudyHead[] =
    "study: limits\nkind: strong\nscale: [1]\nglobal_batch: 8\nworkload: {model: small-cnn}\n";

std::string error_of(const std::string& yaml) {
  Result<Study> study = load_study_text(yaml, "limits.yaml");
  REQUIRE_FALSE(study.is_ok());
  return study.status().message();
}

// "Billion laughs": each level repeats the previous one ten times.
std::string alias_bomb(int levels) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < levels; ++level) {
    std::string previous = "*a" + std::to_string(level - 1);
    yaml += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) yaml += (i ? ", " : "") + previous;
    yaml += "]\n";
  }
  return yaml;
}

}  // namespace

TEST_CASE("a YAML alias bomb is refused by its expanded size") {
  std::string yaml = alias_bomb(9);
  CHECK(yaml.size() < 700);
  std::string message = error_of(yaml);
  CHECK(message.find("limits.yaml:") == 0);
  CHECK(message.find("expands to more than 1000000 values") != std::string::npos);
}

TEST_CASE("deep nesting is refused with its position, however deep") {
  for (int depth : {100, 5000}) {
    CAPTURE(depth);
    std::string yaml = std::string(kStudyHead) + "env: " + std::string(depth, '[') +
                       std::string(depth, ']') + "\n";
    std::string message = error_of(yaml);
    CHECK(message.find("limits.yaml:6:") == 0);
    CHECK(message.find("levels deep") != std::string::npos);
  }
}

TEST_CASE("the run count is checked against max_runs before anything is expanded") {
  std::string matrix = "matrix:\n";
  for (const char* axis : {"a", "b", "c"}) {
    matrix += std::string("  ") + axis + ": [";
    for (int i = 0; i < 1000; ++i) matrix += (i ? ", " : "") + std::to_string(i);
    matrix += "]\n";
  }
  std::string message = error_of(std::string(kStudyHead) + matrix);
  CHECK(message.find("field 'max_runs'") != std::string::npos);
  CHECK(message.find("expands to 1000000000 runs (1 x 1000 x 1000 x 1000 x 1") !=
        std::string::npos);
  CHECK(message.find("more than max_runs 10000") != std::string::npos);

  std::string small = std::string(kStudyHead) + "matrix: {a: [1, 2, 3], b: [1, 2, 3]}\n";
  std::string refused = error_of(small + "max_runs: 8\n");
  CHECK(refused.find("limits.yaml:7:11: field 'max_runs': the study expands to 9 runs") == 0);
  Result<Study> allowed = load_study_text(small + "max_runs: 9\n", "limits.yaml");
  REQUIRE_MESSAGE(allowed.is_ok(), allowed.status().message());
  CHECK(allowed->runs.size() == 9);
}

TEST_CASE("a study with a hundred thousand keys is read") {
  std::string yaml = std::string(kStudyHead) + "env:\n";
  for (int i = 0; i < 120000; ++i) yaml += "  V" + std::to_string(i) + ": x\n";
  Result<Study> study = load_study_text(yaml, "limits.yaml");
  REQUIRE_MESSAGE(study.is_ok(), study.status().message().substr(0, 300));
  CHECK(study->runs.front().env.size() == 120000);
  std::string duplicate = error_of(yaml + "  V7: y\n");
  CHECK(duplicate.find("field 'V7': duplicate key") != std::string::npos);
}

TEST_CASE("errors show control bytes escaped, never raw") {
  std::string escape = error_of(std::string(kStudyHead) + "description: \"a\\\x01\"\n");
  CHECK(escape.find("limits.yaml:6:") == 0);
  CHECK(escape.find('\x01') == std::string::npos);
  CHECK(escape.find("\\x01") != std::string::npos);
  std::string key = error_of(std::string(kStudyHead) + "\"\x1b[2J\": 1\n");
  CHECK(key.find('\x1b') == std::string::npos);
  CHECK(key.find("\\x1b[2J") != std::string::npos);
}

}  // namespace scalestudy
