#include "harness/data/image_folder_pack_format.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

namespace scalestudy::data {
namespace {

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the pack format is read and written by memcpy on a little-endian host"
#endif

constexpr size_t kMagicBytes = 8;
constexpr size_t kFixedHeaderBytes = 72;
constexpr size_t kFooterBytes = 16;  // u64 checksum + end magic
constexpr uint64_t kPixelAlignment = 64;
constexpr uint32_t kLabelBytes = 4;

// A fast non-cryptographic checksum over 8-byte words in four independent lanes (so it
// runs near memory speed); it catches truncation, torn writes and bit rot, not tampering.
class PackChecksum {
 public:
  // Every call but the last must pass a multiple of 8 bytes.
  void update(const uint8_t* data, size_t size_bytes) {
    size_t offset = 0;
    for (; offset + 8 <= size_bytes; offset += 8) {
      uint64_t word;
      std::memcpy(&word, data + offset, 8);
      mix(word);
    }
    if (offset < size_bytes) {
      uint64_t word = 0;
      std::memcpy(&word, data + offset, size_bytes - offset);
      mix(word);
    }
    total_bytes_ += size_bytes;
  }
  uint64_t finish() const {
    uint64_t hash = total_bytes_;
    for (uint64_t lane : lanes_) {
      hash = (hash ^ lane) * kPrime;
      hash ^= hash >> 29;
    }
    return hash;
  }

 private:
  static constexpr uint64_t kPrime = 0x9E3779B97F4A7C15ull;
  void mix(uint64_t word) {
    uint64_t& lane = lanes_[word_count_++ & 3];
    lane = lane ^ word;
    lane = ((lane << 31) | (lane >> 33)) * kPrime;
  }
  uint64_t lanes_[4] = {1, 2, 3, 4};
  uint64_t word_count_ = 0;
  uint64_t total_bytes_ = 0;
};

class ByteWriter {
 public:
  template <typename T>
  void put(T value) {
    const auto* raw = reinterpret_cast<const uint8_t*>(&value);
    bytes.insert(bytes.end(), raw, raw + sizeof(T));
  }
  void put_bytes(const void* data, size_t size) {
    const auto* raw = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), raw, raw + size);
  }
  std::vector<uint8_t> bytes;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  bool get(T& value) {
    if (offset_ + sizeof(T) > size_) return false;
    std::memcpy(&value, data_ + offset_, sizeof(T));
    offset_ += sizeof(T);
    return true;
  }
  bool get_bytes(std::string& text, size_t size) {
    if (offset_ + size > size_) return false;
    text.assign(reinterpret_cast<const char*>(data_ + offset_), size);
    offset_ += size;
    return true;
  }
  size_t offset() const { return offset_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t offset_ = 0;
};

int64_t pixel_bytes_of(const PackHeader& header) {
  return header.count * header.channels * header.height * header.width;
}

struct ParsedHeader {
  PackHeader header;
  uint64_t labels_offset = 0;
  uint64_t pixel_offset = 0;
};

// Parses the header from the file's first `size` bytes (at least up to the labels).
Result<ParsedHeader> parse_header(const uint8_t* data, size_t size, const std::string& path) {
  auto bad = [&](const std::string& what, size_t offset) {
    return Status::error(path + ": byte " + std::to_string(offset) + ": " + what);
  };
  if (size < kFixedHeaderBytes || std::memcmp(data, kPackMagic, kMagicBytes) != 0) {
    return bad("not a scalestudy pack (magic SSPACK01 missing)", 0);
  }
  ByteReader reader(data + kMagicBytes, size - kMagicBytes);
  ParsedHeader parsed;
  PackHeader& header = parsed.header;
  uint32_t version = 0, label_bytes = 0, channels = 0, height = 0, width = 0, classes = 0;
  uint64_t count = 0;
  reader.get(version);
  reader.get(label_bytes);
  reader.get(count);
  reader.get(channels);
  reader.get(height);
  reader.get(width);
  reader.get(classes);
  reader.get(header.source.file_count);
  reader.get(header.source.total_bytes);
  reader.get(header.source.newest_mtime_ns);
  reader.get(parsed.pixel_offset);
  if (version != kPackVersion) {
    return bad("version " + std::to_string(version) + ", this build reads " +
                   std::to_string(kPackVersion) + " (re-pack)",
               8);
  }
  if (label_bytes != kLabelBytes) return bad("label width " + std::to_string(label_bytes), 12);
  if (channels == 0 || height == 0 || width == 0 || classes == 0) {
    return bad("zero channels, height, width or classes", 24);
  }
  header.count = static_cast<int64_t>(count);
  header.channels = channels;
  header.height = height;
  header.width = width;
  for (uint32_t i = 0; i < classes; ++i) {
    uint32_t length = 0;
    std::string name;
    const size_t at = kMagicBytes + reader.offset();
    if (!reader.get(length) || !reader.get_bytes(name, length)) {
      return bad("class name " + std::to_string(i) + " runs past the header", at);
    }
    header.class_names.push_back(std::move(name));
  }
  parsed.labels_offset = kMagicBytes + reader.offset();
  if (parsed.pixel_offset % kPixelAlignment != 0 ||
      parsed.pixel_offset < parsed.labels_offset + count * kLabelBytes) {
    return bad("pixel offset " + std::to_string(parsed.pixel_offset) + " is inconsistent", 64);
  }
  return parsed;
}

Status write_all(FILE* file, const void* data, size_t size, const std::string& path) {
  if (size > 0 && std::fwrite(data, 1, size, file) != size) {
    return Status::error(path + ": write failed (" + std::strerror(errno) + ")");
  }
  return Status::ok();
}

Status write_file(const std::string& path, const std::vector<uint8_t>& head, const uint8_t* pixels,
                  size_t pixel_bytes) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!file) return Status::error(path + ": cannot create (" + std::strerror(errno) + ")");
  PackChecksum checksum;
  checksum.update(head.data(), head.size());
  checksum.update(pixels, pixel_bytes);
  const uint64_t sum = checksum.finish();
  Status written = write_all(file.get(), head.data(), head.size(), path);
  if (written) written = write_all(file.get(), pixels, pixel_bytes, path);
  if (written) written = write_all(file.get(), &sum, sizeof(sum), path);
  if (written) written = write_all(file.get(), kPackEndMagic, kMagicBytes, path);
  if (!written) return written;
  if (std::fflush(file.get()) != 0 || ::fsync(::fileno(file.get())) != 0) {
    return Status::error(path + ": flush failed (" + std::strerror(errno) + ")");
  }
  if (std::fclose(file.release()) != 0) {
    return Status::error(path + ": close failed (" + std::strerror(errno) + ")");
  }
  return Status::ok();
}

}  // namespace

Status write_pack_file(const std::string& path, const PackHeader& header,
                       const std::vector<int32_t>& labels, const uint8_t* pixels) {
  if (static_cast<int64_t>(labels.size()) != header.count) {
    return Status::error(path + ": " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(header.count) + " images");
  }
  ByteWriter names;
  for (const std::string& name : header.class_names) {
    names.put(static_cast<uint32_t>(name.size()));
    names.put_bytes(name.data(), name.size());
  }
  const uint64_t labels_offset = kFixedHeaderBytes + names.bytes.size();
  const uint64_t labels_end = labels_offset + labels.size() * kLabelBytes;
  const uint64_t pixel_offset =
      (labels_end + kPixelAlignment - 1) / kPixelAlignment * kPixelAlignment;

  ByteWriter head;
  head.put_bytes(kPackMagic, kMagicBytes);
  head.put(kPackVersion);
  head.put(kLabelBytes);
  head.put(static_cast<uint64_t>(header.count));
  head.put(static_cast<uint32_t>(header.channels));
  head.put(static_cast<uint32_t>(header.height));
  head.put(static_cast<uint32_t>(header.width));
  head.put(static_cast<uint32_t>(header.class_names.size()));
  head.put(header.source.file_count);
  head.put(header.source.total_bytes);
  head.put(header.source.newest_mtime_ns);
  head.put(pixel_offset);
  head.put_bytes(names.bytes.data(), names.bytes.size());
  head.put_bytes(labels.data(), labels.size() * kLabelBytes);
  head.bytes.resize(pixel_offset, 0);

  // A unique temporary name beside the target: concurrent packers never share one, and
  // the rename is atomic within the folder.
  const std::string temporary =
      path + ".tmp-" + std::to_string(::getpid()) + "-" +
      std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
  Status written =
      write_file(temporary, head.bytes, pixels, static_cast<size_t>(pixel_bytes_of(header)));
  if (written && std::rename(temporary.c_str(), path.c_str()) != 0) {
    written = Status::error(path + ": cannot rename " + temporary + " into place (" +
                            std::strerror(errno) + ")");
  }
  if (!written) std::remove(temporary.c_str());
  return written;
}

Result<PackHeader> read_pack_header(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) return Status::error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::vector<uint8_t> fixed(kFixedHeaderBytes);
  fixed.resize(std::fread(fixed.data(), 1, fixed.size(), file.get()));
  uint64_t pixel_offset = 0;
  if (fixed.size() == kFixedHeaderBytes) std::memcpy(&pixel_offset, fixed.data() + 64, 8);
  // The class names sit between the fixed part and the pixels; read up to there.
  std::vector<uint8_t> head(
      std::max<uint64_t>(kFixedHeaderBytes, std::min<uint64_t>(pixel_offset, 1 << 26)));
  std::rewind(file.get());
  head.resize(std::fread(head.data(), 1, head.size(), file.get()));
  Result<ParsedHeader> parsed = parse_header(head.data(), head.size(), path);
  if (!parsed) return parsed.status();
  return parsed->header;
}

Result<PackedSplit> read_pack_file(const std::string& path) {
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return Status::error(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat info {};
  ::fstat(descriptor, &info);
  const size_t file_bytes = static_cast<size_t>(info.st_size);
  if (file_bytes < kFixedHeaderBytes + kFooterBytes) {
    ::close(descriptor);
    return Status::error(path + ": truncated (" + std::to_string(file_bytes) + " bytes)");
  }
  // Private and writable: pages are shared with the page cache (and other ranks on the
  // node) until someone writes, which copies only that page and never reaches the file.
  void* mapping = ::mmap(nullptr, file_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0);
  ::close(descriptor);
  if (mapping == MAP_FAILED) {
    return Status::error(path + ": cannot map (" + std::strerror(errno) + ")");
  }
  auto unmap = [file_bytes](void* base) { ::munmap(base, file_bytes); };
  std::unique_ptr<void, decltype(unmap)> owner(mapping, unmap);
  const auto* data = static_cast<const uint8_t*>(mapping);

  Result<ParsedHeader> parsed = parse_header(data, file_bytes - kFooterBytes, path);
  if (!parsed) return parsed.status();
  const PackHeader& header = parsed->header;
  const uint64_t pixel_bytes = static_cast<uint64_t>(pixel_bytes_of(header));
  const uint64_t expected_bytes = parsed->pixel_offset + pixel_bytes + kFooterBytes;
  if (file_bytes != expected_bytes) {
    return Status::error(path + ": " + std::to_string(file_bytes) + " bytes, header implies " +
                         std::to_string(expected_bytes) + " (truncated or corrupt; re-pack)");
  }
  const uint8_t* footer = data + file_bytes - kFooterBytes;
  if (std::memcmp(footer + 8, kPackEndMagic, kMagicBytes) != 0) {
    return Status::error(path + ": end marker SSPKEND1 missing (truncated or corrupt; re-pack)");
  }
  PackChecksum checksum;
  checksum.update(data, file_bytes - kFooterBytes);
  uint64_t stored = 0;
  std::memcpy(&stored, footer, 8);
  if (checksum.finish() != stored) {
    return Status::error(path + ": checksum mismatch (corrupt; re-pack)");
  }

  const int64_t classes = static_cast<int64_t>(header.class_names.size());
  torch::Tensor labels = torch::from_blob(const_cast<uint8_t*>(data + parsed->labels_offset),
                                          {header.count}, torch::kInt32)
                             .to(torch::kLong);
  if (header.count > 0 &&
      (labels.min().item<int64_t>() < 0 || labels.max().item<int64_t>() >= classes)) {
    return Status::error(path + ": a label lies outside [0, " + std::to_string(classes) + ")");
  }
  void* pixels = static_cast<uint8_t*>(mapping) + parsed->pixel_offset;
  torch::Tensor images = torch::from_blob(
      pixels, {header.count, header.channels, header.height, header.width},
      [base = owner.release(), unmap](void*) { unmap(base); }, torch::kUInt8);
  return PackedSplit{header, ImageSplit{images, labels}};
}

}  // namespace scalestudy::data
