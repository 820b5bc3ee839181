#include "harness/train/stop_agreement.hpp"

namespace scalestudy::train {
namespace {

torch::Device vote_device(const dist::Communicator& communicator, const torch::Device& device) {
  return communicator.backend() == "gloo" ? torch::Device(torch::kCPU) : device;
}

}  // namespace

StopAgreement::StopAgreement(dist::Communicator& communicator, const torch::Device& device,
                             int64_t check_every)
    : communicator_(communicator),
      check_every_(check_every),
      vote_(torch::zeros({1},
                         torch::dtype(torch::kFloat32).device(vote_device(communicator, device)))),
      result_(vote_.device()) {}

Result<bool> StopAgreement::at_boundary(int64_t global_step, bool requested) {
  if (global_step % check_every_ != 0) return false;
  if (voted_) {
    if (work_) {
      if (Status collected = collect_vote(); !collected) return collected;
    }
    voted_ = false;
    if (result_.read() > 0) return true;
  }
  vote_.fill_(requested ? 1.0 : 0.0);
  work_ = communicator_.allreduce_sum_async(vote_);
  voted_ = true;
  if (!vote_.is_cpu()) {
    if (Status collected = collect_vote(); !collected) return collected;
  }
  return false;
}

Status StopAgreement::settle() {
  voted_ = false;
  if (!work_) return Status::ok();
  return collect_vote();
}

Status StopAgreement::collect_vote() {
  std::unique_ptr<dist::CollectiveWork> work = std::move(work_);
  if (Status waited = work->wait(); !waited) return waited.with_context("stop agreement");
  result_.start(vote_);
  return Status::ok();
}

}  // namespace scalestudy::train
