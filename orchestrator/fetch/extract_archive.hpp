// Unpacks a verified archive into a directory with `tar` or `unzip` run as subprocesses
// from an argv (never a shell string). Stateless.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/fetch/dataset_table.hpp"

namespace scalestudy::fetch {

// Extracts `archive` into `destination` (which must exist). kNone does nothing.
Status extract_archive(ExtractKind kind, const std::string& archive,
                       const std::string& destination);

}  // namespace scalestudy::fetch
