// Test helper: a Communicator for a world of two whose other rank lives in the test. Its
// asynchronous sum adds the peer's contribution in place, on the caller's current stream
// (so it can be captured in a CUDA graph): `peer` receives this rank's tensor and adds
// what the other rank would. Each wait() is counted and returns `wait_status`. The blocking
// collectives are identities. Header-only; one thread.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "harness/dist/communicator.hpp"

namespace scalestudy::testing {

class PeerCommunicator : public dist::Communicator {
 public:
  PeerCommunicator(std::string backend, std::function<void(const torch::Tensor&)> peer)
      : backend_(std::move(backend)), peer_(std::move(peer)) {}

  int rank() const override { return 0; }
  int world_size() const override { return 2; }
  std::string backend() const override { return backend_; }
  std::map<std::string, std::string> settings() const override {
    return {{"process_group", backend_}};
  }

  std::unique_ptr<dist::CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override {
    torch::NoGradGuard no_grad;
    peer_(tensor);
    ++launches;
    return std::make_unique<Work>(*this);
  }
  Status broadcast(const torch::Tensor&, int) override { return Status::ok(); }
  Status barrier() override { return Status::ok(); }

  int launches = 0;
  int waits = 0;
  Status wait_status;

 protected:
  Status allreduce_tensor(const torch::Tensor&, dist::ScalarReduction) override {
    return Status::ok();
  }

 private:
  class Work : public dist::CollectiveWork {
   public:
    explicit Work(PeerCommunicator& owner) : owner_(owner) {}
    Status wait() override {
      ++owner_.waits;
      return owner_.wait_status;
    }

   private:
    PeerCommunicator& owner_;
  };

  std::string backend_;
  std::function<void(const torch::Tensor&)> peer_;
};

}  // namespace scalestudy::testing
