// Lower-case hexadecimal spelling of bytes (digests, build ids, escaped characters).
// Torch-free, header-only.
#pragma once

#include <cstddef>
#include <string>

namespace scalestudy {

// Appends the two hex digits of `byte` to `out`.
inline void append_hex(std::string& out, unsigned char byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 0xf];
}

inline std::string to_hex(const unsigned char* bytes, size_t count) {
  std::string out;
  out.reserve(2 * count);
  for (size_t i = 0; i < count; ++i) append_hex(out, bytes[i]);
  return out;
}

}  // namespace scalestudy
