#include "workloads/allreduce/message_sizes.hpp"

#include <cctype>
#include <limits>

namespace scalestudy::collectives {

Result<int64_t> parse_byte_size(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string suffix = text.substr(digits);
  int shift = -1;
  if (suffix.empty()) shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  const auto fail = [&] {
    return Status::error("'" + text + "' is not a byte size (digits, optionally K, M or G)");
  };
  if (digits == 0 || digits > 12 || shift < 0) return fail();
  const int64_t number = std::stoll(text.substr(0, digits));
  if (number > (std::numeric_limits<int64_t>::max() >> shift)) return fail();
  return number << shift;
}

Result<std::vector<int64_t>> sweep_sizes(const SizeSweep& sweep, int64_t element_bytes) {
  if (sweep.min_bytes <= 0 || sweep.max_bytes < sweep.min_bytes) {
    return Status::error("sizes must satisfy 0 < min-bytes <= max-bytes, got " +
                         std::to_string(sweep.min_bytes) + " and " +
                         std::to_string(sweep.max_bytes));
  }
  if (sweep.step_factor < 2) {
    return Status::error("--step-factor must be at least 2, got " +
                         std::to_string(sweep.step_factor));
  }
  std::vector<int64_t> sizes;
  for (int64_t bytes = sweep.min_bytes; bytes <= sweep.max_bytes;) {
    const int64_t whole = bytes / element_bytes * element_bytes;
    if (whole > 0 && (sizes.empty() || whole != sizes.back())) sizes.push_back(whole);
    if (bytes > std::numeric_limits<int64_t>::max() / sweep.step_factor) break;
    bytes *= sweep.step_factor;
  }
  if (sizes.empty()) {
    return Status::error("no size between " + std::to_string(sweep.min_bytes) + " and " +
                         std::to_string(sweep.max_bytes) + " bytes holds one " +
                         std::to_string(element_bytes) + "-byte element");
  }
  return sizes;
}

}  // namespace scalestudy::collectives
