// What the binary was built from: the source tree's git commit and whether it had local
// changes at build time, the compiler, the build type. Captured by CMake on every build
// (write_build_info.cmake) into a generated header that only build_info.cpp includes, so
// a new commit recompiles one file. Constant values; thread-safe.
#pragma once

#include <string>

namespace scalestudy::record {

struct BuildInfo {
  std::string git_commit;  // "unknown" outside a git checkout
  std::string git_dirty;   // "true" | "false" | "unknown"
  std::string compiler;    // "GNU 12.2.0"
  std::string build_type;  // "RelWithDebInfo"
  std::string scalestudy_version;
};

BuildInfo build_info();

}  // namespace scalestudy::record
