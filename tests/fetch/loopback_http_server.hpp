// LoopbackHttpServer: a small HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the
// fetch tests. It serves byte strings by path, honours "Range: bytes=N-" (206 with
// Content-Range) unless told to ignore it, can cut a response off at an absolute byte
// offset, answers 404 for unknown paths and records every request it saw. One background
// thread; the setters and requests() are safe to call from the test thread.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace scalestudy::fetch::testing {

class LoopbackHttpServer {
 public:
  struct Request {
    std::string path;
    std::string range;  // the Range header's value; empty when absent
  };

  LoopbackHttpServer();
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  std::string url(const std::string& path) const;  // "http://127.0.0.1:<port><path>"
  void serve(const std::string& path, std::string body);
  void set_ignore_range(bool ignore);
  // Close the connection once the body has reached this absolute byte offset (the
  // headers still promise the whole length); nullopt: send everything.
  void set_truncate_at(std::optional<size_t> offset);
  std::vector<Request> requests() const;

 private:
  void accept_loop();
  void handle(int connection);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::map<std::string, std::string> bodies_;
  bool ignore_range_ = false;
  std::optional<size_t> truncate_at_;
  std::vector<Request> requests_;
  std::thread thread_;
};

}  // namespace scalestudy::fetch::testing
