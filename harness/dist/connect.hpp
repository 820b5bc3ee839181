// Rendezvous and communicator construction: rank 0 serves a c10d TCPStore at
// MASTER_ADDR:MASTER_PORT, every rank joins it, and the transport's process group is built
// over it: gloo for CPU tensors, NCCL (SCALESTUDY_CUDA builds) for CUDA ones. A world of
// one gets a SelfCommunicator without any socket.
// Every store wait and every collective is bounded by `timeout`.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/dist/rank_discovery.hpp"

namespace scalestudy::dist {

struct ConnectOptions {
  std::string backend = "gloo";  // "gloo" | "nccl" (see resolve_backend)
  std::chrono::milliseconds timeout{120000};
  // Network interfaces for gloo (GLOO_SOCKET_IFNAME, comma-separated); empty: loopback on
  // one node, the interface of this host's name across nodes.
  std::string socket_ifname;
};

// --backend: auto is nccl for a CUDA device and gloo for the CPU; an error names a
// backend that cannot reduce the device's tensors.
Result<std::string> resolve_backend(const std::string& requested, const torch::Device& device);

Result<std::unique_ptr<Communicator>> connect(const RankInfo& rank_info,
                                              const ConnectOptions& options);

}  // namespace scalestudy::dist
