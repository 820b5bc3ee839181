// A loopback port for a test's ranks to meet at: the kernel picks one nobody holds right now
// (from the ephemeral range, where the SLURM clusters' jobs never derive theirs), so suites
// running side by side never share one the way ports derived from a pid could.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace scalestudy::testing {

inline int free_port() {
  int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(socket_fd);
  return ntohs(address.sin_port);
}

}  // namespace scalestudy::testing
