// Two ranks as two threads of one test process, over loopback: a free port for their
// store, their RankInfo, and a runner that executes a body on both at once.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <future>

#include "harness/dist/rank_discovery.hpp"

namespace scalestudy::testing {

// A loopback port nobody listens on right now.
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

// Rank `rank` of `world_size` ranks on this host, meeting at 127.0.0.1:`port`.
inline dist::RankInfo loopback_rank(int rank, int world_size, int port) {
  dist::RankInfo info;
  info.rank = rank;
  info.local_rank = rank;
  info.world_size = world_size;
  info.local_world_size = world_size;
  info.master_addr = "127.0.0.1";
  info.master_port = port;
  return info;
}

// Runs body(rank) for ranks 0 and 1 concurrently; returns both results.
template <typename Value>
std::array<Value, 2> on_two_ranks(const std::function<Value(int)>& body) {
  std::future<Value> rank1 = std::async(std::launch::async, body, 1);
  Value rank0 = body(0);
  return {std::move(rank0), rank1.get()};
}

}  // namespace scalestudy::testing
