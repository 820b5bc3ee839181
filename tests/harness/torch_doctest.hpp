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

#include <doctest/doctest.h>
