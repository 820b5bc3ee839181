#include "harness/data/file_bytes.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

namespace scalestudy::data {

Result<std::vector<uint8_t>> read_file_bytes(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) {
    return Status::error(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  gzbuffer(file.get(), 1 << 20);
  std::vector<uint8_t> bytes;
  constexpr size_t kChunkBytes = 1 << 22;
  for (;;) {
    const size_t old_size = bytes.size();
    bytes.resize(old_size + kChunkBytes);
    const int read_bytes = gzread(file.get(), bytes.data() + old_size, kChunkBytes);
    if (read_bytes < 0) {
      int code = 0;
      return Status::error(path + ": read failed (" + gzerror(file.get(), &code) + ")");
    }
    bytes.resize(old_size + static_cast<size_t>(read_bytes));
    if (read_bytes == 0) break;
  }
  // A gzip stream cut short reads as a short file; zlib reports it only through gzerror.
  int code = 0;
  const char* message = gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    return Status::error(path + ": corrupt or truncated gzip data (" + message + ")");
  }
  return bytes;
}

Result<std::string> resolve_plain_or_gzip(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_regular_file(path, ignored)) return path;
  if (std::filesystem::is_regular_file(path + ".gz", ignored)) return path + ".gz";
  return Status::error(path + ": no such file (nor " + path + ".gz)");
}

}  // namespace scalestudy::data
