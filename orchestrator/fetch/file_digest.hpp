// Streaming digests of files (OpenSSL EVP): SHA-256 for verification and for the report,
// MD5 where upstream publishes nothing better. Stateless.
#pragma once

#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/fetch/dataset_table.hpp"

namespace scalestudy::fetch {

// Lowercase hex digest of the file at `path`; kind must not be kNone.
Result<std::string> file_digest(const std::string& path, DigestKind kind);

}  // namespace scalestudy::fetch
