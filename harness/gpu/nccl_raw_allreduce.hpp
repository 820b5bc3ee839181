// The all-reduce benchmark's sum all-reduce, straight on NCCL: ncclAllReduce on the
// caller's current stream over the NCCL process group's own communicator, as thin as
// nccl-tests — no per-call events, work objects, tensor stashing or watchdog, which the
// process group adds to every collective (ProcessGroupCommunicator). Everything else
// (broadcast, barrier, scalar reductions) goes to the process group; its collectives queue
// behind the raw ones, since c10d orders its stream after the caller's. The returned
// communicator's wait() does not block (the stream orders what follows); it reports an
// NCCL error that is already pending. Limit: no watchdog sees the raw calls, so a peer that
// dies among them leaves this rank's next host synchronisation waiting (as nccl-tests
// without its -T timeout); the process group's collectives before and after stay bounded.
// Used by the benchmark's thread.
#pragma once

#include <memory>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"

namespace scalestudy::gpu {

// `communicator` with the raw all-reduce where it is an NCCL process group; null where it
// is not (gloo, the self communicator). `communicator` must outlive the result.
Result<std::unique_ptr<dist::Communicator>> raw_nccl_allreduce(dist::Communicator& communicator);

}  // namespace scalestudy::gpu
