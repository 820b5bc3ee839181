#include "harness/core/cpu_isa.hpp"

#include <set>
#include <sstream>

namespace scalestudy {

std::string cpu_isa_level(std::string_view cpuinfo_flags) {
  std::set<std::string> flags;
  std::istringstream words{std::string(cpuinfo_flags)};
  for (std::string word; words >> word;) flags.insert(word);
  // ATen and oneDNN take their AVX-512 paths only with F, BW, VL and DQ together.
  const bool avx512 = flags.count("avx512f") && flags.count("avx512bw") &&
                      flags.count("avx512vl") && flags.count("avx512dq");
  if (avx512 && flags.count("amx_bf16") && flags.count("amx_tile")) return "amx";
  if (avx512 && flags.count("avx512_bf16")) return "avx512_bf16";
  if (avx512) return "avx512";
  if (flags.count("avx2") && flags.count("fma")) return "avx2";
  return "baseline";
}

std::string cpu_isa_of_cpuinfo(std::string_view cpuinfo) {
  size_t start = 0;
  while (start < cpuinfo.size()) {
    size_t end = cpuinfo.find('\n', start);
    if (end == std::string_view::npos) end = cpuinfo.size();
    std::string_view line = cpuinfo.substr(start, end - start);
    size_t colon = line.find(':');
    if (line.substr(0, 5) == "flags" && colon != std::string_view::npos) {
      return cpu_isa_level(line.substr(colon + 1));
    }
    start = end + 1;
  }
  return cpu_isa_level("");
}

}  // namespace scalestudy
