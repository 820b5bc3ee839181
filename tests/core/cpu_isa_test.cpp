#include "harness/core/cpu_isa.hpp"

#include <doctest/doctest.h>

namespace scalestudy {

TEST_CASE("the CPU's ISA level is the highest of amx, avx512_bf16, avx512, avx2 it provides") {
  const std::string avx2 = "fpu sse4_2 fma avx avx2";
  const std::string avx512 = avx2 + " avx512f avx512dq avx512bw avx512vl avx512_vnni";
  CHECK(cpu_isa_level("fpu sse sse2 sse4_2") == "baseline");
  CHECK(cpu_isa_level("") == "baseline");
  CHECK(cpu_isa_level(avx2) == "avx2");
  // AVX-512 foundation alone is not the set ATen and oneDNN dispatch AVX-512 kernels on.
  CHECK(cpu_isa_level(avx2 + " avx512f") == "avx2");
  CHECK(cpu_isa_level(avx512) == "avx512");
  CHECK(cpu_isa_level(avx512 + " avx512_bf16") == "avx512_bf16");
  CHECK(cpu_isa_level(avx512 + " avx512_bf16 amx_bf16 amx_tile amx_int8") == "amx");
  // Words are whole: avx2 inside another word does not count.
  CHECK(cpu_isa_level("fma xavx2x") == "baseline");
}

TEST_CASE("the ISA level of /proc/cpuinfo is read from its first flags line") {
  const std::string cpuinfo =
      "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu fma avx avx2\n\n"
      "processor\t: 1\nflags\t\t: fpu fma avx avx2 avx512f avx512dq avx512bw avx512vl\n";
  CHECK(cpu_isa_of_cpuinfo(cpuinfo) == "avx2");
  CHECK(cpu_isa_of_cpuinfo("processor\t: 0\nFeatures\t: fp asimd sve\n") == "baseline");
}

}  // namespace scalestudy
