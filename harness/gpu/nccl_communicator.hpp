// NcclCommunicator: the Communicator of the GPU path, over a raw NCCL communicator.
//
// Rendezvous: rank 0 draws the ncclUniqueId and publishes it in the run's c10d TCPStore
// (joined once by dist::connect, kept alive by the communicator); every rank reads it and
// joins with ncclCommInitRankConfig on its CUDA device (the
// thread's current device, chosen by select_cuda_device). The communicator is
// non-blocking (config.blocking = 0), so initialisation and every wait are polled against
// a deadline instead of blocking inside NCCL.
//
// Ordering: a collective records an event on the caller's current stream (the compute or
// autograd stream, after the tensor's producer) and runs on a dedicated high-priority
// communication stream that waits on that event; CollectiveWork::wait() makes the
// caller's current stream wait on the collective's completion event — no host block, so
// backward, all-reduces and the optimizer stay queued asynchronously (that is how a
// bucket's all-reduce overlaps backward). Blocking operations (broadcast, barrier, scalar
// all-reduces) poll for completion on the host.
//
// Failures: a watchdog thread polls the in-flight collectives and ncclCommGetAsyncError;
// a collective not done within the timeout, or an asynchronous NCCL error (a peer died,
// a network failure), aborts the communicator (ncclCommAbort, which also unblocks kernels
// and any host synchronisation waiting on them), and every later wait() or collective
// returns "peer rank died or timed out: ..." — a failed run with the reason, never a hang.
// While the caller's stream is capturing a CUDA graph, collectives are recorded into the
// graph and not watched; the watchdog queries in thread-local capture mode, so its polling
// never invalidates a capture on the training thread.
// Tensors must be dense in their own memory format (contiguous or channels_last), as
// c10d's NCCL backend requires.
//
// NCCL reads its NCCL_* environment variables itself (the run records them as env.NCCL_*).
// Thread-safety: as Communicator; the watchdog only touches the failure state under a lock.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/dist/connect.hpp"
#include "harness/dist/rank_discovery.hpp"

namespace scalestudy::gpu {

// A dist::CommunicatorFactory with the contract of dist::make_gloo_communicator;
// options.timeout bounds the id exchange, initialisation and every collective.
Result<std::unique_ptr<dist::Communicator>> make_nccl_communicator(
    const dist::RankInfo& rank_info, const dist::ConnectOptions& options,
    const c10::intrusive_ptr<c10d::Store>& store);

}  // namespace scalestudy::gpu
