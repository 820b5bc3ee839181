#include "orchestrator/campaign/claim_lease.hpp"

#include <optional>

namespace scalestudy::campaign {

ClaimLease::ClaimLease(std::string database_path, std::chrono::milliseconds renewal)
    : database_path_(std::move(database_path)), token_(make_claim_token()) {
  renewer_ = std::thread([this, renewal] { renew_until_stopped(renewal); });
}

ClaimLease::~ClaimLease() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  renewer_.join();
}

std::string ClaimLease::renewal_failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failures_ == 0) return "";
  return "claims not renewed " + std::to_string(failures_) + " time(s); last: " + last_failure_;
}

void ClaimLease::renew_until_stopped(std::chrono::milliseconds renewal) {
  std::optional<StudyState> state;  // this thread's own connection
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, renewal, [this] { return stopping_; })) {
    lock.unlock();
    Status renewed = Status::ok();
    if (!state) {
      auto opened = StudyState::open_existing(database_path_);
      if (opened) {
        state.emplace(std::move(*opened));
      } else {
        renewed = opened.status();
      }
    }
    if (state) renewed = state->renew_claims(token_);
    lock.lock();
    if (!renewed) {
      ++failures_;
      last_failure_ = renewed.message();
    }
  }
}

}  // namespace scalestudy::campaign
