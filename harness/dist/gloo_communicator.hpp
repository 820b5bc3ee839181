// GlooCommunicator: the Communicator over c10d::ProcessGroupGloo (CPU tensors, TCP).
// Built by connect() over the run's store; the process group's options carry the timeout, so a dead
// or hung peer surfaces as an exception inside gloo, which wait() turns into an error Status.
// Thread-safety: see Communicator.
#pragma once

#include <chrono>
#include <memory>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/dist/connect.hpp"
#include "harness/dist/rank_discovery.hpp"

namespace scalestudy::dist {

// A CommunicatorFactory: the gloo process group over the run's joined store.
Result<std::unique_ptr<Communicator>> make_gloo_communicator(
    const RankInfo& rank_info, const ConnectOptions& options,
    const c10::intrusive_ptr<c10d::Store>& store);

}  // namespace scalestudy::dist
