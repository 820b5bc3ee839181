// The NCCL backend's process group (c10d::ProcessGroupNCCL, exported by the wheel's
// libtorch_cuda) for dist::ProcessGroupCommunicator: CUDA tensors, one GPU per rank. The
// unique id travels through the run's store; the group is bound to the rank's device and
// connects at once, so connection failures surface at rendezvous. Collectives run on
// c10d's high-priority stream per device, ordered after the caller's current stream.
// Failure handling is c10d's, set up so that a dead or hung peer fails the run with its
// reason (see the .cpp). NCCL reads its NCCL_* environment itself (recorded as env.NCCL_*).
// Stateless; thread-safe.
#pragma once

#include <torch/torch.h>

#include "harness/core/status.hpp"
#include "harness/dist/connect.hpp"

namespace scalestudy::gpu {

// A dist::ProcessGroupFactory once bound to the rank's `device`.
Result<dist::ProcessGroup> make_nccl_process_group(const c10::Device& device,
                                                   const dist::RankInfo& rank_info,
                                                   const dist::ConnectOptions& options,
                                                   const c10::intrusive_ptr<c10d::Store>& store);

}  // namespace scalestudy::gpu
