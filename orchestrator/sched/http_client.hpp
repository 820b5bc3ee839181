// A minimal HTTP client over libcurl for slurmrestd: a base URL that is either
// "unix:/path/to.sock" (HTTP over a unix socket) or "http(s)://host:port", fixed request
// headers (the caller's credentials) and JSON bodies. TLS peer and host verification are
// always on. Header values never appear in error messages. One instance per thread.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/status.hpp"

namespace scalestudy::sched {

struct HttpResponse {
  long status_code = 0;
  std::string body;
};

class HttpClient {
 public:
  HttpClient(std::string base_url, std::vector<std::pair<std::string, std::string>> headers,
             long timeout_ms);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // method: GET, POST, DELETE. An error only when no HTTP answer came back.
  Result<HttpResponse> request(const std::string& method, const std::string& path,
                               const std::string& body = "");

  int requests_sent() const { return requests_sent_; }

 private:
  std::string socket_path_;  // set for unix: URLs
  std::string url_prefix_;   // "http://localhost" for unix sockets, else the base URL
  std::vector<std::pair<std::string, std::string>> headers_;
  long timeout_ms_;
  int requests_sent_ = 0;
};

}  // namespace scalestudy::sched
