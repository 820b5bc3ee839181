// The GNU build id of an ELF file (its NT_GNU_BUILD_ID note, as hex): a name for a
// binary's content that the linker computed, so no one hashes megabytes to get it. The
// flag-description cache keys answers by it; every rank records its own binary's
// (provenance binary_build_id). Reads the file; thread-safe.
#pragma once

#include <optional>
#include <string>

namespace scalestudy {

// The build id of a native-endian ELF file; none for anything else or a file without one.
std::optional<std::string> elf_build_id(const std::string& path);

}  // namespace scalestudy
