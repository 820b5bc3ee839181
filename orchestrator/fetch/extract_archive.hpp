// Unpacks a verified archive into a directory with `tar` or `unzip` run as subprocesses
// from an argv (never a shell string), after listing it: an archive holding anything but
// files and folders (a symlink, a hard link, a device) or unpacking to more than 100 times
// its size is refused whole. Stateless.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/fetch/dataset_table.hpp"

namespace scalestudy::fetch {

// Extracts `archive` into `destination` (which must exist). kNone does nothing.
Status extract_archive(ExtractKind kind, const std::string& archive,
                       const std::string& destination);

}  // namespace scalestudy::fetch
