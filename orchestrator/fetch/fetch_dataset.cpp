#include "orchestrator/fetch/fetch_dataset.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "orchestrator/fetch/extract_archive.hpp"
#include "orchestrator/fetch/file_digest.hpp"
#include "orchestrator/fetch/http_download.hpp"

namespace scalestudy::fetch {
namespace {

namespace fs = std::filesystem;

unsigned long long size_or_zero(const std::string& path) {
  std::error_code error;
  auto size = fs::file_size(path, error);
  return error ? 0 : static_cast<unsigned long long>(size);
}

// Size, then digest. On success `verification` says what was checked.
Status verify(const Dataset& dataset, const DatasetFile& file, const std::string& path,
              std::string& verification, std::vector<std::string>& warnings) {
  const std::string& what = file.file_name;
  unsigned long long size = size_or_zero(path);
  if (size != file.size_bytes) {
    return Status::error(what + ": size " + std::to_string(size) + " bytes, expected " +
                         std::to_string(file.size_bytes));
  }
  if (file.digest_kind == DigestKind::kNone) {
    auto sha256 = file_digest(path, DigestKind::kSha256);
    if (!sha256) return sha256.status();
    verification = "size only (sha256 " + *sha256 + ")";
    warnings.push_back(what +
                       ": the table has no digest, so it was verified by size only; its "
                       "sha256 is " +
                       *sha256 + " (add sha256:<digest> to the table once checked)");
    return Status::ok();
  }
  auto actual = file_digest(path, file.digest_kind);
  if (!actual) return actual.status();
  const char* kind = digest_name(file.digest_kind);
  if (*actual != file.digest_hex) {
    return Status::error(what + ": " + kind + " mismatch: expected " + file.digest_hex +
                         ", actual " + *actual);
  }
  verification = std::string(kind) + " " + *actual;
  return Status::ok();
}

// Holds an exclusive flock(2) on `path` for its lifetime.
class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ >= 0 && flock(fd_, LOCK_EX) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

// Extracts once per verified archive: a stamp beside it records what was unpacked.
Status extract_once(const DatasetFile& file, const std::string& archive,
                    const std::string& dataset_dir, const std::string& verification) {
  if (file.extract == ExtractKind::kNone) return Status::ok();
  const std::string stamp = dataset_dir + "/." + file.file_name + ".extracted";
  std::ifstream existing(stamp);
  std::string recorded;
  if (existing && std::getline(existing, recorded) && recorded == verification) return Status::ok();
  if (Status extracted = extract_archive(file.extract, archive, dataset_dir); !extracted) {
    return extracted;
  }
  std::ofstream(stamp) << verification << "\n";
  return Status::ok();
}

struct FileFetch {
  const Dataset& dataset;
  const DatasetFile& file;
  const FetchOptions& options;
  std::string final_path, partial_path;
  std::vector<std::string>& warnings;

  void log(const std::string& line) const {
    if (options.log) std::fprintf(options.log, "%s\n", line.c_str());
  }

  // Downloads from `url` into the partial file, resuming while attempts make progress,
  // then verifies. Ok: the partial file is the verified file.
  Status from_url(const std::string& url, std::string& verification) const {
    for (int attempt = 1; attempt <= options.attempts_per_url; ++attempt) {
      unsigned long long before = size_or_zero(partial_path);
      if (before > file.size_bytes) {
        fs::remove(partial_path);
        before = 0;
      }
      if (before < file.size_bytes || file.size_bytes == 0) {
        log("fetching " + dataset.name + "/" + file.file_name + " from " + url +
            (before > 0 ? " (resuming at byte " + std::to_string(before) + ")" : ""));
        DownloadProgress progress(options.log, options.interactive, file.file_name);
        DownloadRequest request{url, partial_path, file.size_bytes, options.connect_timeout_s,
                                options.stall_timeout_s};
        DownloadResult result = download_to_partial(request, options.log ? &progress : nullptr);
        if (result.server_ignored_range) {
          warnings.push_back(url + " ignored the Range request; downloaded " + file.file_name +
                             " from the start");
        }
        if (!result.status) {
          if (result.http_status == 416) fs::remove(partial_path);  // our offset is beyond it
          bool progressed = size_or_zero(partial_path) > before || result.http_status == 416;
          if (progressed && attempt < options.attempts_per_url) continue;
          return result.status;
        }
      }
      Status verified = verify(dataset, file, partial_path, verification, warnings);
      if (!verified) {
        // A bad file must not be resumed: set it aside for inspection instead.
        std::string rejected = partial_path + ".rejected";
        fs::rename(partial_path, rejected);
        return Status::error(verified.message() + " (download kept as " + rejected + ")");
      }
      return Status::ok();
    }
    return Status::error("no attempts allowed");
  }

  Result<FetchedFile> run() const {
    FetchedFile fetched;
    fetched.path = final_path;
    if (fs::exists(final_path)) {
      Status present = verify(dataset, file, final_path, fetched.verification, warnings);
      if (present) {
        fetched.source = "present";
        return fetched;
      }
      if (options.offline) {
        return Status::error("data set '" + dataset.name + "': the present copy " + final_path +
                             " fails verification (" + present.message() +
                             ") and --offline forbids downloading it again");
      }
      warnings.push_back("present copy fails verification, downloading again: " +
                         present.message());
    }
    if (options.offline) {
      return Status::error("data set '" + dataset.name + "': " + file.file_name + " is not in " +
                           fs::path(final_path).parent_path().string() +
                           " and --offline forbids downloading it; copy it there or run "
                           "`scalestudy fetch " +
                           dataset.name + "` where the network is reachable");
    }
    std::string failures;
    for (const auto& url : candidate_urls(dataset, file, options.mirrors)) {
      Status fetched_from = from_url(url, fetched.verification);
      if (fetched_from) {
        if (std::rename(partial_path.c_str(), final_path.c_str()) != 0) {
          return Status::error("cannot move " + partial_path + " to " + final_path + ": " +
                               std::strerror(errno));
        }
        fetched.downloaded = true;
        fetched.source = url;
        return fetched;
      }
      failures += "\n  " + url + ": " + fetched_from.message();
    }
    return Status::error("data set '" + dataset.name + "': could not fetch " + file.file_name +
                         ":" + failures);
  }
};

}  // namespace

std::vector<std::string> candidate_urls(const Dataset& dataset, const DatasetFile& file,
                                        const std::vector<std::string>& mirrors) {
  std::vector<std::string> urls;
  for (std::string mirror : mirrors) {
    while (!mirror.empty() && mirror.back() == '/') mirror.pop_back();
    urls.push_back(mirror + "/" + dataset.name + "/" + file.file_name);
  }
  urls.insert(urls.end(), file.urls.begin(), file.urls.end());
  return urls;
}

std::vector<std::string> parse_mirror_list(const std::string& text) {
  std::vector<std::string> mirrors;
  std::string current;
  for (char character : text + ",") {
    if (character == ',' || std::isspace(static_cast<unsigned char>(character))) {
      if (!current.empty()) mirrors.push_back(current);
      current.clear();
    } else {
      current += character;
    }
  }
  return mirrors;
}

Result<FetchReport> fetch_dataset(const Dataset& dataset, const FetchOptions& options) {
  for (const auto& file : dataset.files) {
    if (file.extract != ExtractKind::kNone && file.digest_kind == DigestKind::kNone &&
        !options.extract_unverified) {
      return Status::error("data set '" + dataset.name + "': " + file.file_name +
                           " is an archive the table gives no digest for; its size proves "
                           "nothing of what it unpacks to: add a sha256 to the table, or pass "
                           "--extract-unverified");
    }
  }
  FetchReport report;
  report.dataset_dir = (fs::path(options.data_root) / dataset.name).string();
  const std::string partial_dir =
      (fs::path(options.data_root) / ".partial" / dataset.name).string();
  if (!options.offline) {  // offline runs only read
    std::error_code error;
    fs::create_directories(report.dataset_dir, error);
    if (!error) fs::create_directories(partial_dir, error);
    if (error) return Status::error("cannot create " + partial_dir + ": " + error.message());
  }

  // The lock guards downloads and renames.
  std::unique_ptr<FileLock> lock;
  if (!options.offline) {
    lock = std::make_unique<FileLock>(partial_dir + "/.lock");
    if (!lock->held()) return Status::error("cannot lock " + partial_dir + "/.lock");
  }
  for (const auto& file : dataset.files) {
    FileFetch one{dataset,
                  file,
                  options,
                  report.dataset_dir + "/" + file.file_name,
                  partial_dir + "/" + file.file_name,
                  report.warnings};
    auto fetched = one.run();
    if (!fetched) return fetched.status();
    if (Status extracted =
            extract_once(file, fetched->path, report.dataset_dir, fetched->verification);
        !extracted) {
      return extracted.with_context("data set '" + dataset.name + "'");
    }
    report.files.push_back(std::move(*fetched));
  }
  return report;
}

std::vector<std::string> mirrors_with_environment(std::vector<std::string> given) {
  if (const char* env_mirrors = std::getenv("SCALESTUDY_MIRRORS")) {
    for (auto& mirror : parse_mirror_list(env_mirrors)) given.push_back(mirror);
  }
  return given;
}

std::string default_data_root() {
  const char* root = std::getenv("SCALESTUDY_DATA_ROOT");
  return root && *root ? root : "data";
}

}  // namespace scalestudy::fetch
