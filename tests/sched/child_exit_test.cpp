// ChildExit and wait_for_child_exit against real child processes. No assertion on how long
// a wait takes: each case would hang (and hit the test timeout) if the wait did not end.
#include "orchestrator/sched/child_exit.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "tests/support/skip.hpp"

using namespace scalestudy::sched;

namespace {

constexpr auto kFallback = std::chrono::milliseconds(20);

// A child that exits with `code` after `sleep_s` seconds.
pid_t child_exiting_after(unsigned sleep_s, int code) {
  pid_t pid = fork();
  if (pid == 0) {
    if (sleep_s > 0) sleep(sleep_s);
    _exit(code);
  }
  return pid;
}

}  // namespace

TEST_CASE("the wait ends once a watched child has exited, which is then reaped at once") {
  pid_t pid = child_exiting_after(0, 7);
  REQUIRE(pid > 0);
  ChildExit exit = ChildExit::watch(pid);
  if (!exit.watching()) {
    waitpid(pid, nullptr, 0);
    SKIP_NOT_APPLICABLE("no pidfd_open on this kernel");
  }
  wait_for_child_exit({&exit}, std::nullopt, kFallback);
  int wait_status = 0;
  CHECK(waitpid(pid, &wait_status, WNOHANG) == pid);
  CHECK(WEXITSTATUS(wait_status) == 7);
}

TEST_CASE("a timer that is due ends the wait while the child still runs") {
  pid_t pid = child_exiting_after(300, 0);
  REQUIRE(pid > 0);
  ChildExit exit = ChildExit::watch(pid);
  wait_for_child_exit({&exit}, std::chrono::steady_clock::now(), kFallback);
  CHECK(waitpid(pid, nullptr, WNOHANG) == 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST_CASE("a child that cannot be watched is looked at again after the fallback interval") {
  pid_t pid = child_exiting_after(300, 0);
  REQUIRE(pid > 0);
  ChildExit unwatched;
  CHECK_FALSE(unwatched.watching());
  wait_for_child_exit({&unwatched}, std::nullopt, kFallback);
  CHECK(waitpid(pid, nullptr, WNOHANG) == 0);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST_CASE("a moved handle keeps watching; the one moved from watches nothing") {
  pid_t pid = child_exiting_after(0, 0);
  REQUIRE(pid > 0);
  ChildExit first = ChildExit::watch(pid);
  const bool watching = first.watching();
  ChildExit second = std::move(first);
  CHECK_FALSE(first.watching());
  CHECK(second.watching() == watching);
  waitpid(pid, nullptr, 0);
}
