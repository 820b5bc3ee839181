// A study database file of 0 bytes is not a study that has not started: it is a file that
// was truncated, or created by something else. Opening it would silently initialise an
// empty study over whatever was meant to be there, so the commands that expect an
// existing study refuse it. Stateless.
#pragma once

#include <string>

#include "harness/core/status.hpp"

namespace scalestudy::common {

// An error naming the file when it exists and is empty; ok otherwise.
Status refuse_empty_database(const std::string& study_db_path);

}  // namespace scalestudy::common
