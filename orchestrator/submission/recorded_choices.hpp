// A submit's choices as its study database records them (campaign::SubmitChoices), so that
// `wait` submits the waves a submit limit held back as the submit was asked: the campaign,
// the scheduler's options, --packed, --scheduler and --system, as command-line options.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/submission/submit_request.hpp"

namespace scalestudy::submission {

// The options that ask for `request` again; `campaign` as resolved (`auto` named).
std::vector<std::string> recorded_choices(const SubmitRequest& request,
                                          const std::string& campaign);

// The request the recorded `options` ask for (no study, results dir or log); an error, in the
// words of `submit`'s own parsing, names an option submit does not take or one without its
// value.
Result<SubmitRequest> request_from_recorded_choices(const std::vector<std::string>& options);

}  // namespace scalestudy::submission
