// fetch_dataset: makes a data set from the table present and verified under the data
// root, downloading only what is missing. Layout:
//   <root>/<name>/<file>                   verified files (and what archives unpack to)
//   <root>/.partial/<name>/<file>          a download in progress, resumed next time
//   <root>/.partial/<name>/<file>.rejected the last download that failed verification,
//                                          kept for inspection, never resumed
// A file is renamed into place only after its size and digest check out (rename(2) within
// the root's filesystem, so readers never see half a file). Concurrent fetches of one
// data set (every rank of a job, say) serialise on a lock file. Stateless between calls.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/fetch/dataset_table.hpp"

namespace scalestudy::fetch {

struct FetchOptions {
  std::string data_root;
  std::vector<std::string> mirrors;  // base URLs holding <mirror>/<name>/<file>; tried first
  bool offline = false;              // never touch the network: present copies only
  // Unpack archives verified by size only (a table row without a digest); else refused.
  bool extract_unverified = false;
  int attempts_per_url = 3;  // resumed retries, while each attempt makes progress
  long connect_timeout_s = 30;
  long stall_timeout_s = 60;
  std::FILE* log = stderr;   // progress, warnings; nullptr: silent
  bool interactive = false;  // progress bar (a terminal) instead of periodic log lines
};

struct FetchedFile {
  std::string path;
  bool downloaded = false;   // false: an already present, verified copy was used
  std::string source;        // the URL it came from, or "present"
  std::string verification;  // "sha256 c4a3...", "md5 ...", "size only (sha256 ...)"
};

struct FetchReport {
  std::string dataset_dir;
  std::vector<FetchedFile> files;
  std::vector<std::string> warnings;
};

Result<FetchReport> fetch_dataset(const Dataset& dataset, const FetchOptions& options);

// Where a file may be fetched from: each mirror's <mirror>/<name>/<file>, then the table's.
std::vector<std::string> candidate_urls(const Dataset& dataset, const DatasetFile& file,
                                        const std::vector<std::string>& mirrors);

// $SCALESTUDY_MIRRORS: URLs separated by commas or blanks.
std::vector<std::string> parse_mirror_list(const std::string& text);

// `given` (--mirror), then the mirrors of $SCALESTUDY_MIRRORS.
std::vector<std::string> mirrors_with_environment(std::vector<std::string> given);

// --data-root default: $SCALESTUDY_DATA_ROOT, else "data".
std::string default_data_root();

}  // namespace scalestudy::fetch
