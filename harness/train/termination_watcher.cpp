#include "harness/train/termination_watcher.hpp"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace scalestudy::train {

TerminationWatcher::TerminationWatcher() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_mask_);
  thread_ = std::thread([this] { watch(); });
}

TerminationWatcher::~TerminationWatcher() {
  stopping_ = true;
  thread_.join();
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void TerminationWatcher::attach(record::RunWriter* writer) {
  std::lock_guard<std::mutex> lock(mutex_);
  writer_ = writer;
}

void TerminationWatcher::watch() {
  const timespec poll_interval{0, 200 * 1000 * 1000};
  while (!stopping_) {
    siginfo_t info{};
    int signal_number = sigtimedwait(&signals_, &info, &poll_interval);
    if (signal_number <= 0) continue;
    std::string reason =
        std::string("terminated by signal ") + (signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
    std::lock_guard<std::mutex> lock(mutex_);
    if (writer_) {
      writer_->mark_failed(reason);
      writer_->close();
    }
    std::fprintf(stderr, "scalestudy: %s\n", reason.c_str());
    std::fflush(stderr);
    std::_Exit(128 + signal_number);
  }
}

}  // namespace scalestudy::train
