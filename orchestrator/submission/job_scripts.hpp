// `scalestudy plan --emit-scripts DIR`: every run's job script as campaign's run preparer
// and the schedulers render it, into DIR/<run_id>.sbatch; the runs' folders are where a
// submit would put them (<results_dir>/<study>/runs/<run_id>).
#pragma once

#include <optional>
#include <string>

#include "orchestrator/study/study.hpp"
#include "orchestrator/submission/submit_request.hpp"

namespace scalestudy::submission {

// Nothing when every script was written; else why not: kBadRequest for a run whose script
// cannot be rendered, kUnavailable for a folder or file that cannot be made or written.
std::optional<SubmitFailure> write_job_scripts(const Study& study, const std::string& dir,
                                               const std::string& results_dir,
                                               const std::string& profiles_dir);

}  // namespace scalestudy::submission
