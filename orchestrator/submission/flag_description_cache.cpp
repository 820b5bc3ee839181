#include "orchestrator/submission/flag_description_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "harness/core/elf_build_id.hpp"
#include "orchestrator/fetch/file_digest.hpp"

namespace scalestudy::submission {
namespace {

namespace fs = std::filesystem;

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
  if (auto id = elf_build_id(path)) return "build-id-" + *id;
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

}  // namespace scalestudy::submission
