// Helpers for the data tests: a scratch directory removed on destruction and writers of
// the real on-disk formats (IDX plain and gzip, CIFAR-10 binary), so the readers are
// exercised on genuine files rather than mocks.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace scalestudy::testing {

class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() /
        ("scalestudy-data-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const {
    std::filesystem::create_directories((path_ / name).parent_path());
    return (path_ / name).string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    gzFile file = gzopen(path.c_str(), "wb");
    if (file == nullptr) throw std::runtime_error("cannot write " + path);
    gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(file);
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// An IDX file of unsigned bytes: magic 0x000008nn, big-endian sizes, then `payload`.
inline std::vector<uint8_t> idx_bytes(const std::vector<uint32_t>& shape,
                                      const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> bytes = {0, 0, 0x08, static_cast<uint8_t>(shape.size())};
  for (uint32_t size : shape) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back((size >> shift) & 0xff);
  }
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

// `count` images of rows x cols whose pixel (i, r, c) is (i * 31 + r * cols + c) % 251.
inline std::vector<uint8_t> image_payload(uint32_t count, uint32_t rows, uint32_t cols) {
  std::vector<uint8_t> payload;
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t p = 0; p < rows * cols; ++p) payload.push_back((i * 31 + p) % 251);
  }
  return payload;
}

inline std::vector<uint8_t> label_payload(uint32_t count, uint32_t num_classes) {
  std::vector<uint8_t> payload;
  for (uint32_t i = 0; i < count; ++i) payload.push_back(i % num_classes);
  return payload;
}

// Writes an MNIST-layout pair "<prefix><stem>-images-idx3-ubyte" + "...-labels-idx1-ubyte".
inline void write_idx_split(const std::string& path_prefix, const std::string& stem, uint32_t count,
                            bool gzip) {
  const std::string suffix = gzip ? ".gz" : "";
  write_bytes(path_prefix + stem + "-images-idx3-ubyte" + suffix,
              idx_bytes({count, 28, 28}, image_payload(count, 28, 28)));
  write_bytes(path_prefix + stem + "-labels-idx1-ubyte" + suffix,
              idx_bytes({count}, label_payload(count, 10)));
}

// CIFAR-10 binary records: label i % 10, red plane 10 + i, green 20 + i, blue 30 + i,
// except pixel 0 of the red plane, which is 200 (to check plane order).
inline std::vector<uint8_t> cifar_bytes(uint32_t count, uint32_t first_label = 0) {
  std::vector<uint8_t> bytes;
  for (uint32_t i = 0; i < count; ++i) {
    bytes.push_back((first_label + i) % 10);
    for (uint32_t plane = 0; plane < 3; ++plane) {
      for (uint32_t p = 0; p < 1024; ++p) {
        bytes.push_back(plane == 0 && p == 0 ? 200 : static_cast<uint8_t>(10 * (plane + 1) + i));
      }
    }
  }
  return bytes;
}

}  // namespace scalestudy::testing
