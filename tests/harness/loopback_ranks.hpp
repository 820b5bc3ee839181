// Two ranks as two threads of one test process, over loopback: a free port for their
// store, their RankInfo, and a runner that executes a body on both at once.
#pragma once

#include <array>
#include <functional>
#include <future>

#include "harness/dist/rank_discovery.hpp"
#include "tests/support/free_port.hpp"

namespace scalestudy::testing {

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
