// ProcessGroupCommunicator: the one Communicator over a c10d process group backend, for
// gloo (CPU tensors) and NCCL (CUDA tensors) alike; the backend factories
// (make_gloo_process_group, gpu::make_nccl_process_group) only construct the backend.
//
// Waiting: an all-reduce's CollectiveWork::wait() calls c10d's Work::wait() — on gloo it
// blocks until done, bounded by the process group's own timeout; on NCCL it makes the
// caller's current stream wait for the collective's end event, without blocking the host
// (so backward, bucket all-reduces and the optimizer stay queued). Blocking operations
// (broadcast, barrier, scalar all-reduces) wait on the host, bounded by the timeout, on
// both. Scalars and barrier tokens live on the group's device.
//
// Failures: an exception from starting or waiting for a collective — gloo's I/O errors and
// timeouts, NCCL's asynchronous errors, blocking-wait timeouts and "communicator was
// aborted" after c10d's watchdog gave up on a collective — becomes
// "peer rank died or timed out: <backend> <what>: <first line>" (dist::peer_failure_message);
// the first such failure sticks, and every later collective returns it without touching the
// backend, whose communicators may be aborted. A tensor type the backend cannot reduce is
// this rank's error, not a peer's. The destructor shuts the backend down cleanly unless a
// collective failed.
//
// Thread-safety: as Communicator (allreduce_sum_async from autograd hook threads under the
// bucketer's lock); the failure state is guarded by its own lock.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "harness/compat/torch_compat.hpp"
#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"

namespace scalestudy::dist {

// A backend as its factory built it.
struct ProcessGroup {
  std::string name;  // "gloo" | "nccl": the Communicator's backend()
  c10::intrusive_ptr<compat::ProcessGroupBackend> backend;
  torch::Device device = torch::kCPU;           // where the backend's tensors live
  std::map<std::string, std::string> settings;  // backend-specific process_group_* keys
};

class ProcessGroupCommunicator : public Communicator {
 public:
  // `store` is the one the group was built over (kept: rank 0 serves it); `store_kind`
  // names it for the provenance ("TCPStore" | "HashStore").
  ProcessGroupCommunicator(ProcessGroup group, c10::intrusive_ptr<c10d::Store> store,
                           std::string store_kind, std::chrono::milliseconds timeout);
  ~ProcessGroupCommunicator() override;
  ProcessGroupCommunicator(const ProcessGroupCommunicator&) = delete;
  ProcessGroupCommunicator& operator=(const ProcessGroupCommunicator&) = delete;

  int rank() const override;
  int world_size() const override;
  std::string backend() const override { return group_.name; }
  std::map<std::string, std::string> settings() const override;

  std::unique_ptr<CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override;
  Status broadcast(const torch::Tensor& tensor, int root_rank) override;
  std::unique_ptr<CollectiveWork> reduce_scatter_sum_async(const torch::Tensor& input,
                                                           const torch::Tensor& output) override;
  std::unique_ptr<CollectiveWork> all_gather_async(const torch::Tensor& output,
                                                   const torch::Tensor& input) override;
  Result<bool> supports_reduce_scatter() override;
  Status barrier() override;

  // The c10d backend and its device, for code that drives it directly (the raw NCCL
  // all-reduce benchmark).
  compat::ProcessGroupBackend& process_group() const { return *group_.backend; }
  const torch::Device& device() const { return group_.device; }

 protected:
  Status allreduce_tensor(const torch::Tensor& tensor, ScalarReduction reduction) override;

 private:
  class AsyncWork;

  template <typename Start>
  Result<c10::intrusive_ptr<c10d::Work>> start(const std::string& what, Start&& start_work);
  Status wait_bounded(const std::string& what, const Result<c10::intrusive_ptr<c10d::Work>>& work);
  // Turns an exception of a collective into its Status; a peer failure sticks.
  Status failed(const std::string& what, const std::exception& error);
  Status failure() const;

  ProcessGroup group_;
  c10::intrusive_ptr<c10d::Store> store_;
  std::string store_kind_;
  std::chrono::milliseconds timeout_;
  mutable std::mutex mutex_;
  Status failure_;                      // the first peer failure; guarded by mutex_
  std::optional<bool> reduce_scatter_;  // supports_reduce_scatter(), once asked
};

}  // namespace scalestudy::dist
