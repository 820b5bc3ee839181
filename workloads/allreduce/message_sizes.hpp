// The message sizes of a collective sweep, as nccl-tests' -b/-e/-f make them: from
// min_bytes up to max_bytes, multiplying by step_factor, each rounded down to whole
// elements. Sizes are written as nccl-tests writes them: "8", "64K", "32M", "1G" (binary
// multiples). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::collectives {

struct SizeSweep {
  int64_t min_bytes = 8;
  int64_t max_bytes = 32 << 20;
  int64_t step_factor = 2;
};

// "64K" → 65536; an error names what is not a size.
Result<int64_t> parse_byte_size(const std::string& text);

// Ascending, distinct, each a positive multiple of element_bytes; an error when the
// bounds are inverted, the factor is below 2, or no size holds one element.
Result<std::vector<int64_t>> sweep_sizes(const SizeSweep& sweep, int64_t element_bytes);

}  // namespace scalestudy::collectives
