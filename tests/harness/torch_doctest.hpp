// Include this instead of <doctest/doctest.h> in suites that use LibTorch. c10's logging
// headers (glog-backed in Debian's build, c10's own in the wheels) define CHECK, CHECK_EQ
// ... as fatal assertions; whichever header comes last owns the names, so a suite that
// includes doctest first silently gets aborting glog checks that doctest never counts.
// Torch first, then its macros dropped, then doctest.
#pragma once

#include <torch/torch.h>

#undef CHECK
#undef CHECK_EQ
#undef CHECK_NE
#undef CHECK_LT
#undef CHECK_LE
#undef CHECK_GT
#undef CHECK_GE
#undef CHECK_NOTNULL
#undef CHECK_FALSE

#ifdef DOCTEST_LIBRARY_INCLUDED
// doctest came earlier (a file before this one in a unity build): the names just dropped
// were its own, and its include guard keeps it from defining them again.
#define CHECK(...) DOCTEST_CHECK(__VA_ARGS__)
#define CHECK_EQ(...) DOCTEST_CHECK_EQ(__VA_ARGS__)
#define CHECK_NE(...) DOCTEST_CHECK_NE(__VA_ARGS__)
#define CHECK_LT(...) DOCTEST_CHECK_LT(__VA_ARGS__)
#define CHECK_LE(...) DOCTEST_CHECK_LE(__VA_ARGS__)
#define CHECK_GT(...) DOCTEST_CHECK_GT(__VA_ARGS__)
#define CHECK_GE(...) DOCTEST_CHECK_GE(__VA_ARGS__)
#define CHECK_FALSE(...) DOCTEST_CHECK_FALSE(__VA_ARGS__)
#else
#include <doctest/doctest.h>
#endif
