// Study-state fixtures shared by the campaign tests: a planned run of the "demo" study and
// the record of one run.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "orchestrator/campaign/study_state.hpp"

namespace scalestudy::testing {

inline campaign::PlannedRun planned_run(const std::string& run_id, const std::string& out_dir) {
  campaign::PlannedRun run;
  run.spec.run_id = run_id;
  run.spec.study = "demo";
  run.spec.world_size = 1;
  run.spec.varied = {{"world_size", "1"}};
  run.out_dir = out_dir;
  return run;
}

inline campaign::RunRecord run_record_of(campaign::StudyState& state, const std::string& run_id) {
  auto runs = state.runs();
  REQUIRE(runs.is_ok());
  for (const auto& run : *runs) {
    if (run.run_id == run_id) return run;
  }
  FAIL("no run " << run_id);
  return {};
}

}  // namespace scalestudy::testing
