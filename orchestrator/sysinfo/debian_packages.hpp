// Versions of installed Debian packages, read from dpkg's status database through the
// probe (so tests can fake it). Stateless.
#pragma once

#include <string>

#include "orchestrator/sysinfo/probe.hpp"

namespace scalestudy::sysinfo {

// The Version of `package` when it is installed; empty otherwise.
std::string debian_package_version(const Probe& probe, const std::string& package);

}  // namespace scalestudy::sysinfo
