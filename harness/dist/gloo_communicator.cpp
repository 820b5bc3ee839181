#include "harness/dist/gloo_communicator.hpp"

#include <sstream>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace scalestudy::dist {
namespace {

// What a failed rendezvous or collective means. gloo's type switch throws "Invalid scalar type" for
// a dtype it has no reduction for (bfloat16 in LibTorch 1.13): that is this rank's tensor, not a
// peer. Anything else while peers exchange data is a peer that died or went silent (c10
// messages carry a C++ backtrace after the first line; the first line says it all).
std::string communication_failure(const std::string& what, const std::exception& error) {
  if (std::string(error.what()).find("Invalid scalar type") != std::string::npos) {
    std::string message = error.what();
    message.resize(std::min(message.size(), message.find('\n')));
    return "gloo in this LibTorch cannot reduce the tensor's type: " + what + ": " + message;
  }
  return peer_failure_message(what, error);
}

class GlooWork : public CollectiveWork {
 public:
  GlooWork(c10::intrusive_ptr<c10d::Work> work, std::chrono::milliseconds timeout, std::string what)
      : work_(std::move(work)), timeout_(timeout), what_(std::move(what)) {}

  Status wait() override {
    try {
      if (!work_->wait(timeout_)) return Status::error("peer rank died or timed out: " + what_);
      return Status::ok();
    } catch (const std::exception& error) {
      return Status::error(communication_failure(what_, error));
    }
  }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
  std::chrono::milliseconds timeout_;
  std::string what_;
};

c10d::ReduceOp to_reduce_op(ScalarReduction reduction) {
  switch (reduction) {
    case ScalarReduction::kMax:
      return c10d::ReduceOp::MAX;
    case ScalarReduction::kMin:
      return c10d::ReduceOp::MIN;
    case ScalarReduction::kSum:
      break;
  }
  return c10d::ReduceOp::SUM;
}

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(c10::intrusive_ptr<c10d::ProcessGroupGloo> group, int rank, int world_size,
                   std::chrono::milliseconds timeout)
      : group_(std::move(group)), rank_(rank), world_size_(world_size), timeout_(timeout) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  std::string backend() const override { return "gloo"; }

  std::unique_ptr<CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override {
    return launch("all-reduce", [&] {
      std::vector<at::Tensor> tensors{tensor};
      return group_->allreduce(tensors);
    });
  }

  Status broadcast(const torch::Tensor& tensor, int root_rank) override {
    return launch("broadcast",
                  [&] {
                    std::vector<at::Tensor> tensors{tensor};
                    c10d::BroadcastOptions options;
                    options.rootRank = root_rank;
                    return group_->broadcast(tensors, options);
                  })
        ->wait();
  }

  Status barrier() override {
    return launch("barrier", [&] { return group_->barrier(); })->wait();
  }

 protected:
  Status allreduce_tensor(const torch::Tensor& tensor, ScalarReduction reduction) override {
    return launch("scalar all-reduce",
                  [&] {
                    std::vector<at::Tensor> tensors{tensor};
                    c10d::AllreduceOptions options;
                    options.reduceOp = to_reduce_op(reduction);
                    return group_->allreduce(tensors, options);
                  })
        ->wait();
  }

 private:
  // Starting a collective can itself throw (a closed connection); that becomes a work
  // whose wait() reports it.
  template <typename Start>
  std::unique_ptr<CollectiveWork> launch(const std::string& what, Start&& start) {
    class FailedWork : public CollectiveWork {
     public:
      explicit FailedWork(Status status) : status_(std::move(status)) {}
      Status wait() override { return status_; }

     private:
      Status status_;
    };
    try {
      return std::make_unique<GlooWork>(start(), timeout_, what);
    } catch (const std::exception& error) {
      return std::make_unique<FailedWork>(Status::error(communication_failure(what, error)));
    }
  }

  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
  int rank_;
  int world_size_;
  std::chrono::milliseconds timeout_;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

}  // namespace

Result<std::unique_ptr<Communicator>> make_gloo_communicator(
    const RankInfo& rank_info, const ConnectOptions& options,
    const c10::intrusive_ptr<c10d::Store>& store) {
  const std::string where = rank_info.master_addr + ":" + std::to_string(rank_info.master_port);
  try {
    auto group_options = c10d::ProcessGroupGloo::Options::create(options.timeout);
    if (!options.socket_ifname.empty()) {
      for (const std::string& interface : split_commas(options.socket_ifname)) {
        group_options->devices.push_back(
            c10d::ProcessGroupGloo::createDeviceForInterface(interface));
      }
    } else if (rank_info.local_world_size == rank_info.world_size) {
      group_options->devices.push_back(
          c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      group_options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank_info.rank,
                                                             rank_info.world_size, group_options);
    return std::unique_ptr<Communicator>(std::make_unique<GlooCommunicator>(
        std::move(group), rank_info.rank, rank_info.world_size, options.timeout));
  } catch (const std::exception& error) {
    return Status::error(communication_failure("gloo connection via " + where, error));
  }
}

}  // namespace scalestudy::dist
