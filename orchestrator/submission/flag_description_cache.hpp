// Remembers what a workload binary says about its flags (`--describe-flags json`), keyed by
// the binary's content, so plan, validate, submit and run do not start the binary (and load
// LibTorch) each time. An entry is DIR/<key>.json: written to a temporary file and renamed,
// so readers see a whole answer or none; an entry that does not parse is asked again and
// rewritten; a directory that cannot be written only means nothing is remembered.
// Stateless apart from the files; safe to use from several processes at once.
#pragma once

#include <functional>
#include <string>

#include "harness/core/status.hpp"
#include "orchestrator/study/workload_flags.hpp"

namespace scalestudy::submission {

// $XDG_CACHE_HOME/scalestudy/describe-flags, else $HOME/.cache/scalestudy/describe-flags;
// empty (nothing remembered) when neither variable is set.
std::string default_flag_description_cache_dir();

// The name of a file's content: "build-id-<hex>" from an ELF file's NT_GNU_BUILD_ID note
// (read from its note segments, constant time), else "sha256-<hex>" of its bytes.
Result<std::string> binary_content_key(const std::string& path);

// The flags of the binary at `path`: from `cache_dir` when it holds a parsable answer for
// the binary's content, else `ask()`'s answer (the JSON text), remembered when it parses.
// `cache_dir` empty: always asks.
Result<WorkloadFlags> cached_flag_description(const std::string& cache_dir, const std::string& path,
                                              const std::function<Result<std::string>()>& ask);

}  // namespace scalestudy::submission
