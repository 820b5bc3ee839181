// A loopback port for a test's ranks to meet at: the kernel picks one nobody holds right now
// (from the ephemeral range, where the SLURM clusters' jobs never derive theirs), so suites
// running side by side never share one the way ports derived from a pid could.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace scalestudy::testing {

// Throws naming the failed call and errno: a silent port 0 would surface later as a
// rendezvous that never meets, far from the socket error that caused it.
inline int free_port() {
  const auto failed = [](const char* call) {
    return std::runtime_error(std::string("free_port: ") + call +
                              " failed: " + std::strerror(errno));
  };
  const int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (socket_fd < 0) throw failed("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  const char* failed_call = nullptr;
  if (::bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    failed_call = "bind to 127.0.0.1:0";
  } else if (::getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    failed_call = "getsockname";
  }
  if (failed_call) {
    const std::runtime_error error = failed(failed_call);
    ::close(socket_fd);
    throw error;
  }
  ::close(socket_fd);
  return ntohs(address.sin_port);
}

}  // namespace scalestudy::testing
