#include "harness/core/elf_build_id.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "harness/core/hex.hpp"

namespace scalestudy {
namespace {

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
std::optional<std::string> build_id_in_segments(int fd) {
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

}  // namespace

std::optional<std::string> elf_build_id(const std::string& path) {
  FileDescriptor file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  unsigned char ident[EI_NIDENT];
  if (file.fd < 0 || !read_at(file.fd, ident, sizeof ident, 0) ||
      std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    return std::nullopt;
  }
  const unsigned char native =
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (ident[EI_DATA] != native) return std::nullopt;
  if (ident[EI_CLASS] == ELFCLASS64) return build_id_in_segments<Elf64_Ehdr, Elf64_Phdr>(file.fd);
  if (ident[EI_CLASS] == ELFCLASS32) return build_id_in_segments<Elf32_Ehdr, Elf32_Phdr>(file.fd);
  return std::nullopt;
}

}  // namespace scalestudy
