#include "tests/fetch/loopback_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "harness/core/ascii_case.hpp"

namespace scalestudy::fetch::testing {
namespace {

bool send_all(int connection, const char* data, size_t length) {
  while (length > 0) {
    ssize_t sent = send(connection, data, length, MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data += sent;
    length -= static_cast<size_t>(sent);
  }
  return true;
}

}  // namespace

LoopbackHttpServer::LoopbackHttpServer() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (listen_fd_ < 0 ||
      bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listen_fd_, 16) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("LoopbackHttpServer: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { accept_loop(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  stopping_ = true;
  thread_.join();
  close(listen_fd_);
}

std::string LoopbackHttpServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void LoopbackHttpServer::serve(const std::string& path, std::string body) {
  std::lock_guard<std::mutex> lock(mutex_);
  bodies_[path] = std::move(body);
}

void LoopbackHttpServer::set_ignore_range(bool ignore) {
  std::lock_guard<std::mutex> lock(mutex_);
  ignore_range_ = ignore;
}

void LoopbackHttpServer::set_truncate_at(std::optional<size_t> offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  truncate_at_ = offset;
}

std::vector<LoopbackHttpServer::Request> LoopbackHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

void LoopbackHttpServer::accept_loop() {
  while (!stopping_) {
    pollfd ready{listen_fd_, POLLIN, 0};
    if (poll(&ready, 1, 20) <= 0) continue;
    int connection = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    handle(connection);
    close(connection);
  }
}

void LoopbackHttpServer::handle(int connection) {
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    ssize_t count = recv(connection, buffer, sizeof(buffer), 0);
    if (count <= 0) return;
    head.append(buffer, static_cast<size_t>(count));
  }
  std::istringstream lines(head);
  std::string method, path, line;
  lines >> method >> path;
  std::getline(lines, line);
  Request request{path, ""};
  while (std::getline(lines, line) && line != "\r") {
    auto colon = line.find(':');
    if (colon != std::string::npos && ascii_lowercase(line.substr(0, colon)) == "range") {
      request.range = line.substr(colon + 1);
      while (!request.range.empty() &&
             std::isspace(static_cast<unsigned char>(request.range.front())))
        request.range.erase(0, 1);
      while (!request.range.empty() &&
             std::isspace(static_cast<unsigned char>(request.range.back())))
        request.range.pop_back();
    }
  }

  std::string body;
  bool found = false, ignore_range = false;
  std::optional<size_t> truncate_at;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(request);
    auto entry = bodies_.find(path);
    if (entry != bodies_.end()) {
      body = entry->second;
      found = true;
    }
    ignore_range = ignore_range_;
    truncate_at = truncate_at_;
  }
  if (!found) {
    const char kNotFound[] =
        "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found";
    send_all(connection, kNotFound, sizeof(kNotFound) - 1);
    return;
  }
  size_t start = 0;
  bool partial = !request.range.empty() && !ignore_range &&
                 std::sscanf(request.range.c_str(), "bytes=%zu-", &start) == 1;
  std::string headers;
  if (partial && start >= body.size()) {
    headers = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" +
              std::to_string(body.size()) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    send_all(connection, headers.data(), headers.size());
    return;
  }
  if (!partial) start = 0;
  headers = partial ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " +
                          std::to_string(start) + "-" + std::to_string(body.size() - 1) + "/" +
                          std::to_string(body.size()) + "\r\n"
                    : "HTTP/1.1 200 OK\r\n";
  headers += "Content-Length: " + std::to_string(body.size() - start) +
             "\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n";
  if (!send_all(connection, headers.data(), headers.size())) return;
  size_t end = truncate_at ? std::max(start, std::min(*truncate_at, body.size())) : body.size();
  send_all(connection, body.data() + start, end - start);
}

}  // namespace scalestudy::fetch::testing
