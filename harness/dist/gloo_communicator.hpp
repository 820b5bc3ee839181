// GlooCommunicator: the Communicator over c10d::ProcessGroupGloo (CPU tensors, TCP).
// Built by connect(); the process group's options carry the timeout, so a dead or hung
// peer surfaces as an exception inside gloo, which wait() turns into an error Status.
// Thread-safety: see Communicator.
#pragma once

#include <chrono>
#include <memory>

#include "harness/core/status.hpp"
#include "harness/dist/communicator.hpp"
#include "harness/dist/connect.hpp"
#include "harness/dist/rank_discovery.hpp"

namespace scalestudy::dist {

Result<std::unique_ptr<Communicator>> make_gloo_communicator(const RankInfo& rank_info,
                                                             const ConnectOptions& options);

}  // namespace scalestudy::dist
