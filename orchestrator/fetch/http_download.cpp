#include "orchestrator/fetch/http_download.hpp"

#include <curl/curl.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "harness/core/ascii_case.hpp"

namespace scalestudy::fetch {
namespace {

constexpr unsigned long long kNoRange = ~0ULL;

// What the callbacks learn and write while curl runs one transfer.
struct Transfer {
  const DownloadRequest* request = nullptr;
  DownloadProgress* progress = nullptr;
  unsigned long long offset = 0;  // bytes already in the partial file when we asked
  long http_status = 0;
  unsigned long long content_range_start = kNoRange;
  std::FILE* file = nullptr;
  bool opened = false;
  bool ignored_range = false;
  unsigned long long received = 0;
  std::string abort_reason;  // set when a callback stops the transfer
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect or 100 Continue)
    transfer.http_status = 0;
    transfer.content_range_start = kNoRange;
    auto space = line.find(' ');
    if (space != std::string::npos) transfer.http_status = std::atol(line.c_str() + space + 1);
  } else if (ascii_lowercase(line).rfind("content-range:", 0) == 0) {
    unsigned long long start = 0;
    if (std::sscanf(line.c_str() + 14, " bytes %llu-", &start) == 1) {
      transfer.content_range_start = start;
    }
  }
  return size * count;
}

// Decides, at the first body byte, whether the body continues the partial file (206 at
// our offset) or replaces it (200: the server ignored Range, or we asked for none).
bool open_partial(Transfer& transfer) {
  bool is_http = transfer.http_status != 0;
  bool append = is_http && transfer.http_status == 206;
  if (append && transfer.content_range_start != transfer.offset) {
    transfer.abort_reason = "server sent a range starting at byte " +
                            std::to_string(transfer.content_range_start) + ", asked for " +
                            std::to_string(transfer.offset);
    return false;
  }
  transfer.ignored_range = !append && transfer.offset > 0;
  const std::string& path = transfer.request->partial_path;
  transfer.file = std::fopen(path.c_str(), append ? "ab" : "wb");
  if (transfer.file == nullptr) {
    transfer.abort_reason = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  if (!append) transfer.offset = 0;
  if (transfer.progress) transfer.progress->restart(transfer.offset);
  transfer.opened = true;
  return true;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  size_t bytes = size * count;
  if (transfer.http_status >= 300) return bytes;  // an error page: not part of the file
  if (!transfer.opened && !open_partial(transfer)) return 0;
  const unsigned long long expected = transfer.request->expected_bytes;
  if (expected > 0 && transfer.offset + transfer.received + bytes > expected) {
    // A server sending more than the table's size must not fill the disk.
    transfer.abort_reason =
        "the server sent more than the expected " + std::to_string(expected) + " bytes";
    return 0;
  }
  if (std::fwrite(data, 1, bytes, transfer.file) != bytes) {
    transfer.abort_reason =
        "write error on " + transfer.request->partial_path + ": " + std::strerror(errno);
    return 0;
  }
  transfer.received += bytes;
  return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto& transfer = *static_cast<Transfer*>(user);
  if (transfer.progress && transfer.opened) {
    transfer.progress->update(transfer.offset + transfer.received,
                              transfer.request->expected_bytes);
  }
  return 0;
}

unsigned long long file_size(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? static_cast<unsigned long long>(info.st_size) : 0;
}

bool is_http(const std::string& url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

}  // namespace

DownloadResult download_to_partial(const DownloadRequest& request, DownloadProgress* progress) {
  DownloadResult result;
  Transfer transfer;
  transfer.request = &request;
  transfer.progress = progress;
  transfer.offset = is_http(request.url) ? file_size(request.partial_path) : 0;

  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    result.status = Status::error("curl_easy_init failed");
    return result;
  }
  char error_text[CURL_ERROR_SIZE] = {};
  std::string range = std::to_string(transfer.offset) + "-";
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_s);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, request.stall_timeout_s);
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "scalestudy-fetch");
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
  if (transfer.offset > 0) curl_easy_setopt(handle, CURLOPT_RANGE, range.c_str());

  CURLcode code = curl_easy_perform(handle);
  // An empty 200 body never reaches on_body; the file must still end up (empty) there.
  if (code == CURLE_OK && !transfer.opened && transfer.http_status < 300) open_partial(transfer);
  if (transfer.file != nullptr && std::fclose(transfer.file) != 0 && code == CURLE_OK) {
    transfer.abort_reason = "cannot finish writing " + request.partial_path;
  }

  result.http_status = transfer.http_status;
  result.resumed_from_bytes = transfer.ignored_range ? 0 : transfer.offset;
  result.server_ignored_range = transfer.ignored_range;
  result.received_bytes = transfer.received;
  if (!transfer.abort_reason.empty()) {
    result.status = Status::error(transfer.abort_reason);
  } else if (code != CURLE_OK) {
    result.status = Status::error(std::string(curl_easy_strerror(code)) +
                                  (error_text[0] ? std::string(": ") + error_text : ""));
  } else if (transfer.http_status >= 300) {
    result.status = Status::error("HTTP " + std::to_string(transfer.http_status));
  } else if (progress) {
    progress->finish(transfer.offset + transfer.received, request.expected_bytes);
  }
  return result;
}

}  // namespace scalestudy::fetch
