// The claims of one submit kept alive while it works: a token naming this process
// (make_claim_token) whose claims a thread renews every kClaimRenewal through its own
// connection to the study database, so another submitter, on any host, takes them over only
// once this process is gone (StudyState::claim_runs). Renewal errors (a database locked for
// long) are retried at the next renewal: the lease is ten renewals long; they are counted,
// and the submitter reports them (renewal_failures), since a lease not renewed for its
// length lets a submitter on another host take the claims over.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "orchestrator/campaign/study_state.hpp"

namespace scalestudy::campaign {

class ClaimLease {
 public:
  // Renews the claims of a fresh token in the study database at `database_path`.
  explicit ClaimLease(std::string database_path, std::chrono::milliseconds renewal = kClaimRenewal);
  // Stops renewing; claims still held then expire after kClaimLease.
  ~ClaimLease();
  ClaimLease(const ClaimLease&) = delete;
  ClaimLease& operator=(const ClaimLease&) = delete;

  const std::string& token() const { return token_; }
  // "claims not renewed 3 time(s); last: <why>", or "" when every renewal succeeded.
  std::string renewal_failures() const;

 private:
  void renew_until_stopped(std::chrono::milliseconds renewal);

  const std::string database_path_;
  const std::string token_;
  mutable std::mutex mutex_;
  int failures_ = 0;
  std::string last_failure_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread renewer_;
};

}  // namespace scalestudy::campaign
