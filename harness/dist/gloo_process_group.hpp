// The gloo backend's process group (c10d::ProcessGroupGloo: CPU tensors over TCP) for
// ProcessGroupCommunicator. Constructing it needs gloo's headers, and they must be the
// ones the LibTorch in use was built with: Debian's LibTorch pairs with libgloo-dev, while
// the PyTorch wheel ships gloo inside libtorch_cpu without headers. CMake defines
// SCALESTUDY_WITH_GLOO only where torch's include folders hold gloo; elsewhere gloo is not
// built in and asking for it fails with the reason. Stateless; thread-safe.
#pragma once

#include "harness/core/status.hpp"
#include "harness/dist/connect.hpp"

namespace scalestudy::dist {

// The gloo ProcessGroupFactory; an error naming why where this build has no gloo.
Result<ProcessGroupFactory> gloo_factory();

}  // namespace scalestudy::dist
