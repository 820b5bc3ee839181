// Reads a whole data file into memory, transparently decompressing gzip (zlib reads plain
// files unchanged), so every format reader accepts both "x" and "x.gz". Errors name the
// file and what went wrong. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::data {

Result<std::vector<uint8_t>> read_file_bytes(const std::string& path);

// `path` if it exists, else `path + ".gz"` if that exists, else an error naming both.
Result<std::string> resolve_plain_or_gzip(const std::string& path);

}  // namespace scalestudy::data
