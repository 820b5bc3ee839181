#include "harness/train/termination_watcher.hpp"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace scalestudy::train {
namespace {

const char* signal_name(int signal_number) {
  return signal_number == SIGTERM ? "SIGTERM" : "SIGINT";
}

}  // namespace

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
    if (!deferred_) fail_and_exit(signal_number);
    if (!stop_requested_) {
      requested_by_ = signal_name(signal_number);
      stop_requested_ = true;
      std::fprintf(stderr, "scalestudy: %s: checkpointing at the next step boundary\n",
                   signal_name(signal_number));
      std::fflush(stderr);
    } else if (signal_number == SIGINT) {
      fail_and_exit(signal_number);
    }
  }
}

void TerminationWatcher::fail_and_exit(int signal_number) {
  std::string reason = std::string("terminated by signal ") + signal_name(signal_number);
  std::lock_guard<std::mutex> lock(mutex_);
  if (writer_) {
    writer_->mark_failed(reason);
    writer_->close();
  }
  std::fprintf(stderr, "scalestudy: %s\n", reason.c_str());
  std::fflush(stderr);
  std::_Exit(128 + signal_number);
}

}  // namespace scalestudy::train
