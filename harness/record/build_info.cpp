#include "harness/record/build_info.hpp"

#include "scalestudy_build_info.h"

namespace scalestudy::record {

BuildInfo build_info() {
  return BuildInfo{SCALESTUDY_GIT_COMMIT, SCALESTUDY_GIT_DIRTY, SCALESTUDY_COMPILER,
                   SCALESTUDY_BUILD_TYPE, SCALESTUDY_VERSION};
}

}  // namespace scalestudy::record
