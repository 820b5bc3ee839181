#include "orchestrator/cli/flag_description_cache.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "harness/core/hex.hpp"
#include "orchestrator/fetch/file_digest.hpp"

namespace scalestudy::cli {
namespace {

namespace fs = std::filesystem;

// A note segment larger than this is not a build-id note segment; skip it.
constexpr size_t kMaxNoteSegmentBytes = 1 << 16;
constexpr size_t kMaxProgramHeaders = 1 << 12;

// Closes the descriptor when it leaves scope.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) close(fd);
  }
};

bool read_at(int fd, void* buffer, size_t bytes, uint64_t offset) {
  return pread(fd, buffer, bytes, static_cast<off_t>(offset)) == static_cast<ssize_t>(bytes);
}

// The NT_GNU_BUILD_ID descriptor in one note segment, as hex.
std::optional<std::string> build_id_in_notes(const std::vector<unsigned char>& notes,
                                             size_t align) {
  const auto padded = [align](size_t size) { return (size + align - 1) / align * align; };
  size_t at = 0;
  while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
    Elf64_Nhdr header;  // the same layout as Elf32_Nhdr
    std::memcpy(&header, notes.data() + at, sizeof header);
    const size_t name_at = at + sizeof header;
    const size_t desc_at = name_at + padded(header.n_namesz);
    const size_t next = desc_at + padded(header.n_descsz);
    if (desc_at > notes.size() || next > notes.size()) return std::nullopt;
    const bool gnu = header.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0;
    if (gnu && header.n_type == NT_GNU_BUILD_ID && header.n_descsz > 0) {
      return to_hex(notes.data() + desc_at, header.n_descsz);
    }
    at = next;
  }
  return std::nullopt;
}

// The build id from the PT_NOTE segments of an ELF file of one class (32 or 64 bit).
template <typename Ehdr, typename Phdr>
std::optional<std::string> elf_build_id(int fd) {
  Ehdr elf;
  if (!read_at(fd, &elf, sizeof elf, 0) || elf.e_phentsize != sizeof(Phdr) ||
      elf.e_phnum > kMaxProgramHeaders) {
    return std::nullopt;
  }
  std::vector<Phdr> segments(elf.e_phnum);
  if (!read_at(fd, segments.data(), segments.size() * sizeof(Phdr), elf.e_phoff)) {
    return std::nullopt;
  }
  for (const Phdr& segment : segments) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > kMaxNoteSegmentBytes) continue;
    std::vector<unsigned char> notes(segment.p_filesz);
    if (!read_at(fd, notes.data(), notes.size(), segment.p_offset)) continue;
    if (auto id = build_id_in_notes(notes, segment.p_align == 8 ? 8 : 4)) return id;
  }
  return std::nullopt;
}

// The build id of a native-endian ELF file; none for anything else.
std::optional<std::string> build_id(const std::string& path) {
  FileDescriptor file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  unsigned char ident[EI_NIDENT];
  if (file.fd < 0 || !read_at(file.fd, ident, sizeof ident, 0) ||
      std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    return std::nullopt;
  }
  const unsigned char native =
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (ident[EI_DATA] != native) return std::nullopt;
  if (ident[EI_CLASS] == ELFCLASS64) return elf_build_id<Elf64_Ehdr, Elf64_Phdr>(file.fd);
  if (ident[EI_CLASS] == ELFCLASS32) return elf_build_id<Elf32_Ehdr, Elf32_Phdr>(file.fd);
  return std::nullopt;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to `path` through a temporary file beside it; failures are ignored (the
// answer is only not remembered).
void remember(const fs::path& path, const std::string& text) {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error) return;
  // A unique name (mkstemp): processes on other hosts sharing the cache may have our pid.
  std::string temporary = path.string() + ".XXXXXX";
  const int fd = mkstemp(temporary.data());
  if (fd < 0) return;
  const bool written =
      write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && close(fd) == 0;
  if (!written) {
    fs::remove(temporary, error);
    return;
  }
  fs::rename(temporary, path, error);
  if (error) fs::remove(temporary, error);
}

}  // namespace

std::string default_flag_description_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  fs::path root;
  if (xdg != nullptr && xdg[0] == '/') {
    root = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    root = fs::path(home) / ".cache";
  } else {
    return "";
  }
  return (root / "scalestudy" / "describe-flags").string();
}

Result<std::string> binary_content_key(const std::string& path) {
  if (auto id = build_id(path)) return "build-id-" + *id;
  auto digest = fetch::file_digest(path, fetch::DigestKind::kSha256);
  if (!digest) return digest.status();
  return "sha256-" + *digest;
}

Result<WorkloadFlags> cached_flag_description(const std::string& cache_dir, const std::string& path,
                                              const std::function<Result<std::string>()>& ask) {
  std::optional<fs::path> entry;
  if (!cache_dir.empty()) {
    if (auto key = binary_content_key(path)) entry = fs::path(cache_dir) / (*key + ".json");
  }
  if (entry) {
    if (auto text = read_file(*entry)) {
      if (auto flags = parse_workload_flags_json(*text)) return flags;
    }
  }
  auto answer = ask();
  if (!answer) return answer.status();
  auto flags = parse_workload_flags_json(*answer);
  // Remembered only when the binary that answered is still the one the key was read from
  // (a rebuild while it ran would file the new answer under the old content).
  if (flags && entry) {
    auto key_now = binary_content_key(path);
    if (key_now && entry->filename() == *key_now + ".json") remember(*entry, *answer);
  }
  return flags;
}

}  // namespace scalestudy::cli
