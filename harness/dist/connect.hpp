// Rendezvous and communicator construction: rank 0 serves a c10d TCPStore at
// MASTER_ADDR:MASTER_PORT, every rank joins it — once per run, for every backend — and the
// backend's c10d process group is built over that store and wrapped in the one adapter,
// ProcessGroupCommunicator: gloo for CPU tensors, NCCL for CUDA ones. The NCCL process
// group lives in harness/gpu and reaches connect() through a ProcessGroupFactory
// (DeviceRuntime::nccl_factory() of a SCALESTUDY_CUDA build), so dist/ never includes gpu/.
// The communicator keeps the store alive for its whole life, so the server (rank 0)
// outlives every rank's initialisation. A world of one gets a SelfCommunicator without any
// socket — or, with one_rank_process_group, the backend's process group of size 1 over an
// in-process HashStore, so that one device runs the same communication code as many.
// Every store wait and every collective is bounded by `timeout`.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/dist/process_group_communicator.hpp"
#include "harness/dist/rank_discovery.hpp"

namespace scalestudy::dist {

struct ConnectOptions;

// Builds one backend's process group over the run's store (joined, or in-process for a
// world of one).
using ProcessGroupFactory =
    std::function<Result<ProcessGroup>(const RankInfo& rank_info, const ConnectOptions& options,
                                       const c10::intrusive_ptr<c10d::Store>& store)>;

struct ConnectOptions {
  std::string backend = "gloo";  // "gloo" | "nccl" (see resolve_backend)
  std::chrono::milliseconds timeout{120000};
  // Network interfaces for gloo (GLOO_SOCKET_IFNAME, comma-separated); empty: loopback on
  // one node, the interface of this host's name across nodes.
  std::string socket_ifname;
  // The NCCL process group of a CUDA build (DeviceRuntime::nccl_factory()); empty where the
  // build or the device has none.
  ProcessGroupFactory nccl_factory;
  // A world of one builds the backend's process group of size 1 instead of the self
  // communicator (--one-rank-process-group).
  bool one_rank_process_group = false;
};

// --backend: auto is nccl for a CUDA device and gloo for the CPU; an error names a
// backend that cannot reduce the device's tensors.
Result<std::string> resolve_backend(const std::string& requested, const torch::Device& device);

Result<std::unique_ptr<Communicator>> connect(const RankInfo& rank_info,
                                              const ConnectOptions& options);

// "peer rank died or timed out: <what>: <first line of the error>" — what a failed
// rendezvous or collective means, with c10's backtrace cut off.
std::string peer_failure_message(const std::string& what, const std::exception& error);

}  // namespace scalestudy::dist
