// Run directories are stored in the study database relative to the results dir (the
// folder that holds <study>.sqlite; run_layout::study_run_dir names them), so a results
// folder copied or moved elsewhere stays self-contained; older databases hold absolute
// paths, which stay as they are. Functions.
#pragma once

#include <string>

namespace scalestudy::common {

// `stored` made absolute against the folder of `study_db_path`; an absolute `stored` is
// returned as it is.
std::string results_path(const std::string& study_db_path, const std::string& stored);

}  // namespace scalestudy::common
