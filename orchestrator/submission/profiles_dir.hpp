// Where profile definitions (profiles/<name>.yaml) are read from by default.
#pragma once

#include <string>

namespace scalestudy::submission {

// $SCALESTUDY_PROFILES_DIR, else the source tree's profiles/.
std::string default_profiles_dir();

}  // namespace scalestudy::submission
