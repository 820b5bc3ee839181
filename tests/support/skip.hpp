// Skipping a test case honestly. Two kinds of skip:
// - SKIP_UNLESS_INSTALLED: a prerequisite that scripts/install-deps.sh and the build provide
//   (the local SLURM cluster, Fashion-MNIST, a workload binary). Where the suites are meant
//   to run in full (CI=true, or root on Debian) the case fails with the reason instead.
// - SKIP_NOT_APPLICABLE: a case this machine or this build cannot have (no CUDA device, a
//   LibTorch without fused kernels, a kernel without pidfd_open): always a skip.
// Either prints "skipped: <reason>" and leaves the test case. A test binary all of whose
// cases skipped exits with kSkipExitCode (tests/doctest_main.cpp), which CTest counts as
// skipped (SKIP_RETURN_CODE, cmake/ScalestudyTest.cmake) instead of passed.
#pragma once

#include <doctest/doctest.h>

namespace scalestudy::testing {

// CTest's SKIP_RETURN_CODE for the doctest suites (the automake convention).
constexpr int kSkipExitCode = 77;

// True where every prerequisite must be present: CI=true, or root on Debian (where
// scripts/test.sh has run install-deps.sh).
bool prerequisites_required();

// Marks the running test case as skipped (counted by the doctest main).
void note_skipped_case();

// How many test cases ran, and how many of them skipped (read by the doctest main).
struct SkipTally {
  unsigned cases_run = 0;
  unsigned cases_skipped = 0;
};
SkipTally skip_tally();

}  // namespace scalestudy::testing

// Record the skip without leaving: for helpers that report it to their caller.
#define NOTE_SKIP_NOT_APPLICABLE(reason)        \
  do {                                          \
    MESSAGE("skipped: " << reason);             \
    ::scalestudy::testing::note_skipped_case(); \
  } while (false)

#define NOTE_SKIP_UNLESS_INSTALLED(reason)                                         \
  do {                                                                             \
    if (::scalestudy::testing::prerequisites_required()) {                         \
      FAIL(                                                                        \
          "not skipped, since every prerequisite must be installed here (CI=true " \
          "or root on Debian): "                                                   \
          << reason);                                                              \
    }                                                                              \
    NOTE_SKIP_NOT_APPLICABLE(reason);                                              \
  } while (false)

#define SKIP_NOT_APPLICABLE(reason)   \
  do {                                \
    NOTE_SKIP_NOT_APPLICABLE(reason); \
    return;                           \
  } while (false)

#define SKIP_UNLESS_INSTALLED(reason)   \
  do {                                  \
    NOTE_SKIP_UNLESS_INSTALLED(reason); \
    return;                             \
  } while (false)
