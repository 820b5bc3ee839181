// The run id: the first 16 hex digits of the 128-bit FNV-1a hash of a RunSpec's canonical
// serialisation. The serialisation lists every field that changes what runs (sorted map
// keys, length-prefixed values, the repeat index) and leaves out run_id and `varied` (which
// depends on the other runs of the study), so the id is the same on any machine and for
// any YAML spelling of the same content, and changes when anything that runs changes.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "orchestrator/study/run_spec.hpp"

namespace scalestudy {

std::string canonical_run_serialization(const RunSpec& spec);

// 128-bit FNV-1a of `bytes`, as 32 lowercase hex digits.
std::string fnv1a_128_hex(std::string_view bytes);

// First 16 hex digits of fnv1a_128_hex(canonical_run_serialization(spec)).
std::string compute_run_id(const RunSpec& spec);

}  // namespace scalestudy
