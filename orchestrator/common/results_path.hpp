// Run directories are stored in the study database relative to the results dir (the
// folder that holds <study>.sqlite), so a results folder copied or moved elsewhere stays
// self-contained; older databases hold absolute paths, which stay as they are. Functions.
#pragma once

#include <string>

namespace scalestudy::common {

// "<study>/runs/<run_id>": what runs.out_dir stores for a submitted run.
std::string stored_run_dir(const std::string& study_name, const std::string& run_id);

// `stored` made absolute against the folder of `study_db_path`; an absolute `stored` is
// returned as it is.
std::string results_path(const std::string& study_db_path, const std::string& stored);

}  // namespace scalestudy::common
