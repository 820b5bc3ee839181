#include "orchestrator/submission/profiles_dir.hpp"

#include <cstdlib>

namespace scalestudy::submission {

std::string default_profiles_dir() {
  if (const char* dir = std::getenv("SCALESTUDY_PROFILES_DIR"); dir && *dir) return dir;
  return SCALESTUDY_PROFILES_DIR;
}

}  // namespace scalestudy::submission
