// SLURM hostlist expansion: "node[1-3,05],gpu07" → node1 node2 node3 node05 gpu07, the
// compressed form SLURM_JOB_NODELIST uses. Zero padding of a range is kept ("n[08-10]" →
// n08 n09 n10). Several bracket groups in one name multiply ("r[1-2]n[1-2]"). Pure
// function; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::dist {

Result<std::vector<std::string>> expand_hostlist(std::string_view hostlist);

}  // namespace scalestudy::dist
