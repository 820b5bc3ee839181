#include "orchestrator/common/fork_signals.hpp"

#include <pthread.h>

namespace scalestudy::common {

ForkSignalGuard::ForkSignalGuard() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous_mask_);
}

ForkSignalGuard::~ForkSignalGuard() {
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void ForkSignalGuard::prepare_child() const {
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    struct sigaction current = {};
    // exec keeps ignored signals ignored and resets handled ones; do the same now.
    if (sigaction(signal_number, nullptr, &current) != 0) continue;
    if (current.sa_handler == SIG_IGN || current.sa_handler == SIG_DFL) continue;
    sigaction(signal_number, &default_action, nullptr);
  }
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

}  // namespace scalestudy::common
