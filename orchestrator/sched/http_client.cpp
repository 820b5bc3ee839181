#include "orchestrator/sched/http_client.hpp"

#include <curl/curl.h>

namespace scalestudy::sched {
namespace {

size_t append_body(char* data, size_t size, size_t count, void* sink) {
  static_cast<std::string*>(sink)->append(data, size * count);
  return size * count;
}

}  // namespace

HttpClient::HttpClient(std::string base_url,
                       std::vector<std::pair<std::string, std::string>> headers, long timeout_ms)
    : headers_(std::move(headers)), timeout_ms_(timeout_ms) {
  const std::string unix_prefix = "unix:";
  if (base_url.rfind(unix_prefix, 0) == 0) {
    socket_path_ = base_url.substr(unix_prefix.size());
    url_prefix_ = "http://localhost";
  } else {
    while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
    url_prefix_ = base_url;
  }
}

HttpClient::~HttpClient() = default;

Result<HttpResponse> HttpClient::request(const std::string& method, const std::string& path,
                                         const std::string& body) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Status::error("libcurl: curl_easy_init failed");
  ++requests_sent_;
  std::string url = url_prefix_ + path;
  HttpResponse response;
  char error_text[CURL_ERROR_SIZE] = {};
  curl_slist* header_list = curl_slist_append(nullptr, "Content-Type: application/json");
  header_list = curl_slist_append(header_list, "Accept: application/json");
  for (const auto& [name, value] : headers_) {
    header_list = curl_slist_append(header_list, (name + ": " + value).c_str());
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(header_list,
                                                                           curl_slist_free_all);
  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  if (!socket_path_.empty())
    curl_easy_setopt(handle, CURLOPT_UNIX_SOCKET_PATH, socket_path_.c_str());
  curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "POST") {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, header_list);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms_);
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 2L);
  CURLcode code = curl_easy_perform(handle);
  if (code != CURLE_OK) {
    std::string detail = error_text[0] != '\0' ? error_text : curl_easy_strerror(code);
    return Status::error(method + " " + url + (socket_path_.empty() ? "" : " via " + socket_path_) +
                         ": " + detail);
  }
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status_code);
  return response;
}

}  // namespace scalestudy::sched
