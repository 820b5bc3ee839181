#include "orchestrator/common/host_list.hpp"

#include <doctest/doctest.h>

using scalestudy::common::expand_host_list;
using scalestudy::common::host_list_items;
using Names = std::vector<std::string>;

TEST_CASE("host lists expand as SLURM writes them") {
  CHECK(expand_host_list("node1") == Names{"node1"});
  CHECK(expand_host_list("node[1-3]") == Names{"node1", "node2", "node3"});
  CHECK(expand_host_list("gpu[08-10,12],login") ==
        Names{"gpu08", "gpu09", "gpu10", "gpu12", "login"});
  CHECK(expand_host_list("n[x]") == Names{"n[x]"});
  CHECK(host_list_items("a[1-2,4],b") == Names{"a[1-2,4]", "b"});
}
