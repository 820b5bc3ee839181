#include "orchestrator/results/analysis/device_peaks.hpp"

#include <cctype>
#include <iterator>

namespace scalestudy::results {
namespace {

// 0: the device has no such path. Vendor datasheets, dense figures (sparse ones halved
// where the sheet gives only those). H200 and GH200 share the H100 SXM's compute.
struct PeakRow {
  const char* token;  // matched as a whole word of the CUDA name
  const char* device;
  double fp32, tf32, fp16, bf16;
};

// Most specific first: "H100 PCIe" and "H100 NVL" before the plain "H100" (SXM).
constexpr PeakRow kPeaks[] = {
    {"H100 PCIe", "H100 PCIe", 51.2, 378, 756, 756},
    {"H100 NVL", "H100 NVL", 60, 417.5, 835.5, 835.5},
    {"GH200", "GH200", 67, 494.7, 989.4, 989.4},
    {"H200", "H200", 67, 494.7, 989.4, 989.4},
    {"H100", "H100 SXM", 67, 494.7, 989.4, 989.4},
    {"A100", "A100", 19.5, 156, 312, 312},
    {"L40S", "L40S", 91.6, 183, 362, 362},
    {"A10", "A10", 31.2, 62.5, 125, 125},
    {"L4", "L4", 30.3, 60, 121, 121},
    {"V100-SXM2", "V100 SXM2", 15.7, 0, 125, 0},
    {"V100-PCIE", "V100 PCIe", 14, 0, 112, 0},
    {"T4", "T4", 8.1, 0, 65, 0},
};

bool word_boundary(const std::string& text, size_t at) {
  return at >= text.size() || !std::isalnum(static_cast<unsigned char>(text[at]));
}

// `token` in `name` as whole words: "A10" is not in "A100", "H200" not in "GH200".
bool contains_word(const std::string& name, const std::string& token) {
  for (size_t at = name.find(token); at != std::string::npos; at = name.find(token, at + 1)) {
    if ((at == 0 || word_boundary(name, at - 1)) && word_boundary(name, at + token.size())) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<DevicePeak> datasheet_dense_peak(const std::string& gpu_model,
                                               const std::string& precision) {
  for (const PeakRow& row : kPeaks) {
    if (!contains_word(gpu_model, row.token)) continue;
    const double tflops = precision == "tf32"   ? row.tf32
                          : precision == "fp16" ? row.fp16
                          : precision == "bf16" ? row.bf16
                                                : row.fp32;
    if (tflops <= 0) return std::nullopt;
    return DevicePeak{row.device, tflops};
  }
  return std::nullopt;
}

}  // namespace scalestudy::results
