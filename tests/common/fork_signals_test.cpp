// ForkSignalGuard: between fork and exec the child runs no handler of the parent's (a
// handled signal acts by default, an ignored one stays ignored), and the parent's signal
// mask is what it was once the guard is gone.
#include "orchestrator/common/fork_signals.hpp"

#include <doctest/doctest.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

volatile sig_atomic_t handler_ran = 0;
void note_signal(int) {
  handler_ran = 1;
}

// Forks under the guard; the child raises `signal_number` and exits 0 if it survives, 1 if
// a handler of the parent's ran in it. Returns the child's wait status.
int raise_in_child(int signal_number) {
  scalestudy::common::ForkSignalGuard guard;
  pid_t pid = fork();
  if (pid == 0) {
    guard.prepare_child();
    raise(signal_number);
    _exit(handler_ran ? 1 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("a forked child acts on a signal as the program it execs would, not as the parent") {
  struct sigaction handled = {}, ignored = {}, previous_usr1 = {}, previous_usr2 = {};
  handled.sa_handler = note_signal;
  ignored.sa_handler = SIG_IGN;
  REQUIRE(sigaction(SIGUSR1, &handled, &previous_usr1) == 0);
  REQUIRE(sigaction(SIGUSR2, &ignored, &previous_usr2) == 0);

  const int handled_status = raise_in_child(SIGUSR1);
  CHECK(WIFSIGNALED(handled_status));
  CHECK(WTERMSIG(handled_status) == SIGUSR1);
  const int ignored_status = raise_in_child(SIGUSR2);
  CHECK(WIFEXITED(ignored_status));
  CHECK(WEXITSTATUS(ignored_status) == 0);

  CHECK(handler_ran == 0);
  sigaction(SIGUSR1, &previous_usr1, nullptr);
  sigaction(SIGUSR2, &previous_usr2, nullptr);
}

TEST_CASE("the parent's signal mask is restored when the guard goes") {
  sigset_t before, after;
  pthread_sigmask(SIG_SETMASK, nullptr, &before);
  { scalestudy::common::ForkSignalGuard guard; }
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    CAPTURE(signal_number);
    CHECK(sigismember(&before, signal_number) == sigismember(&after, signal_number));
  }
}
