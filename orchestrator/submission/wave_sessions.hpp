// For `wait`: the sessions that submit the waves a submit limit held back (and the runs a
// packed allocation did not reach), made as the last submit was asked: the study YAML the
// database records, and the scheduler, options and systems of its recorded choices
// (recorded_choices.hpp); planned runs only.
#pragma once

#include <functional>
#include <string>

#include "orchestrator/campaign/study_state.hpp"
#include "orchestrator/submission/submit_sessions.hpp"

namespace scalestudy::submission {

// `log`: the submits' progress lines; may be empty.
SubmitSetup make_wave_sessions(campaign::StudyState& state, const std::string& results_dir,
                               std::function<void(const std::string& line)> log);

}  // namespace scalestudy::submission
