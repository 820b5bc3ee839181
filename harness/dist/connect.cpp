#include "harness/dist/connect.hpp"

#include "harness/dist/gloo_communicator.hpp"

namespace scalestudy::dist {

Result<std::unique_ptr<Communicator>> connect(const RankInfo& rank_info,
                                              const ConnectOptions& options) {
  if (rank_info.world_size == 1) {
    return std::unique_ptr<Communicator>(std::make_unique<SelfCommunicator>());
  }
  if (options.backend == "gloo") return make_gloo_communicator(rank_info, options);
  return Status::error("communication backend '" + options.backend +
                       "' is not built in (available: gloo)");
}

}  // namespace scalestudy::dist
