// Helpers shared by the study tests: load inline YAML and fail the test with the loader's
// message when it is rejected.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "orchestrator/study/study.hpp"

namespace scalestudy::testing {

inline Study load_ok(const std::string& yaml, const std::string& name = "inline.yaml") {
  Result<Study> study = load_study_text(yaml, name);
  INFO(study.status().message());
  REQUIRE(study.is_ok());
  return std::move(study).value();
}

inline std::string load_error(const std::string& yaml, const std::string& name = "inline.yaml") {
  Result<Study> study = load_study_text(yaml, name);
  REQUIRE_FALSE(study.is_ok());
  return study.status().message();
}

}  // namespace scalestudy::testing
