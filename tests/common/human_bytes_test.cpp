#include "orchestrator/common/human_bytes.hpp"

#include <doctest/doctest.h>

namespace scalestudy::common {
namespace {

TEST_CASE("human_bytes: whole bytes below a KiB, one decimal in binary units above") {
  CHECK(human_bytes(0) == "0 B");
  CHECK(human_bytes(1023) == "1023 B");
  CHECK(human_bytes(1536) == "1.5 KiB");
  CHECK(human_bytes(3ULL * 1024 * 1024 * 1024) == "3.0 GiB");
  CHECK(human_bytes(2048ULL * 1024 * 1024 * 1024 * 1024 * 1024) == "2048.0 PiB");
}

}  // namespace
}  // namespace scalestudy::common
