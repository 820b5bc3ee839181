// The x86-64 vector ISA level a CPU offers its BLAS, oneDNN and ATen kernels: the level
// decides which kernels bf16 and fp32 math take, so it changes results and speed alike (an
// AVX2-only CPU emulates bf16 in fp32, an AVX512_BF16 or AMX one computes it natively).
// Recorded as the run's `cpu_isa` and shown by `scalestudy sysinfo`. Pure functions;
// thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace scalestudy {

// The highest of "amx", "avx512_bf16", "avx512", "avx2" that the "flags" line of
// /proc/cpuinfo (the words after the colon) provides, else "baseline" (below AVX2, or not
// x86-64: no word of the four).
std::string cpu_isa_level(std::string_view cpuinfo_flags);

// cpu_isa_level() of the first "flags" line of `cpuinfo` (the text of /proc/cpuinfo).
std::string cpu_isa_of_cpuinfo(std::string_view cpuinfo);

}  // namespace scalestudy
