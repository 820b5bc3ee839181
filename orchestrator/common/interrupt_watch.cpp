#include "orchestrator/common/interrupt_watch.hpp"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace scalestudy::common {

Result<std::unique_ptr<InterruptWatch>> InterruptWatch::open() {
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  sigset_t previous;
  if (pthread_sigmask(SIG_BLOCK, &interrupt, &previous) != 0) {
    return Status::error("blocking SIGINT: " + std::string(std::strerror(errno)));
  }
  const int fd = signalfd(-1, &interrupt, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return Status::error("signalfd: " + why);
  }
  return std::unique_ptr<InterruptWatch>(new InterruptWatch(fd, previous));
}

InterruptWatch::~InterruptWatch() {
  // A Ctrl-C not taken yet would kill the process the moment SIGINT is unblocked.
  take();
  close(fd_);
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

int InterruptWatch::take() {
  int count = 0;
  signalfd_siginfo info;
  while (read(fd_, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) ++count;
  taken_ += count;
  return count;
}

bool InterruptWatch::wait_for(double seconds) {
  pollfd ready = {fd_, POLLIN, 0};
  poll(&ready, 1, static_cast<int>(std::max(0.0, seconds) * 1000));
  return take() > 0;
}

}  // namespace scalestudy::common
