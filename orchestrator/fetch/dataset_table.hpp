// The table of data sets `scalestudy fetch` can download (orchestrator/fetch/datasets.tsv,
// compiled into the binary; --table FILE reads another): per file its size, digest, how
// to unpack it and where to get it. Plain value types; parsing is pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::fetch {

enum class DigestKind { kSha256, kMd5, kNone };  // kNone: verified by size only
enum class ExtractKind { kNone, kTarGz, kZip };

struct DatasetFile {
  std::string file_name;
  unsigned long long size_bytes = 0;
  DigestKind digest_kind = DigestKind::kNone;
  std::string digest_hex;  // lowercase; empty for kNone
  ExtractKind extract = ExtractKind::kNone;
  std::vector<std::string> urls;  // upstream locations, in order
};

struct Dataset {
  std::string name;
  std::vector<DatasetFile> files;
};

// `source_name` prefixes errors: "datasets.tsv:12:34: digest: ...".
Result<std::vector<Dataset>> parse_dataset_table(const std::string& text,
                                                 const std::string& source_name);

// The table built into the binary (datasets.tsv at build time).
const std::string& builtin_dataset_table();

// The table of file `file` (`fetch --table`), else the built-in one, parsed.
Result<std::vector<Dataset>> load_dataset_table(const std::optional<std::string>& file);

// The data set `name`; an error listing the known names otherwise.
Result<Dataset> find_dataset(const std::vector<Dataset>& table, const std::string& name);

const char* digest_name(DigestKind kind);  // "sha256", "md5", "size only"

}  // namespace scalestudy::fetch
