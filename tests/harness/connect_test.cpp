// dist::connect's one rendezvous, the layout rule of collectives and the buffer broadcast
// before validation, with two ranks as two threads of this process over loopback.
#include "harness/dist/connect.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "harness/dist/gloo_process_group.hpp"
#include "harness/dist/parameter_sync.hpp"
#include "harness/dist/tensor_layout.hpp"
#include "tests/harness/loopback_ranks.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::dist {
namespace {

using testing::free_port;
using testing::on_two_ranks;

RankInfo rank_of_two(int rank, int port) {
  return testing::loopback_rank(rank, 2, port);
}

}  // namespace

TEST_CASE("connect joins one store and hands it to the NCCL factory") {
  const int port = free_port();
  ConnectOptions options;
  options.backend = "nccl";
  options.timeout = std::chrono::milliseconds(60000);
  // Stands in for the NCCL factory of a CUDA build: rank 0 publishes a key in the store it
  // is handed and every rank reads it, as ProcessGroupNCCL exchanges its unique id; the
  // group it returns is gloo's over the same store.
  options.nccl_factory = [](const RankInfo& rank_info, const ConnectOptions& factory_options,
                            const c10::intrusive_ptr<c10d::Store>& store) -> Result<ProcessGroup> {
    if (rank_info.rank == 0) store->set("probe", std::vector<uint8_t>{'i', 'd'});
    std::vector<uint8_t> value = store->get("probe");
    auto gloo = gloo_factory();
    if (!gloo) return gloo.status();
    auto group = (*gloo)(rank_info, factory_options, store);
    if (group) group->settings["probe"] = std::string(value.begin(), value.end());
    return group;
  };
  // Both communicators stay alive until both ranks are done with the store.
  auto results = on_two_ranks<Result<std::unique_ptr<Communicator>>>(
      [&](int rank) { return connect(rank_of_two(rank, port), options); });
  for (auto& connected : results) {
    REQUIRE_MESSAGE(connected.is_ok(), connected.status().message());
    std::map<std::string, std::string> settings = (*connected)->settings();
    CHECK(settings["probe"] == "id");
    CHECK(settings["process_group_store"] == "TCPStore");
    CHECK(settings["process_group_size"] == "2");
  }
}

TEST_CASE("without an NCCL factory, nccl is not built in") {
  ConnectOptions options;
  options.backend = "nccl";
  auto connected = connect(rank_of_two(0, free_port()), options);
  REQUIRE_FALSE(connected.is_ok());
  CHECK(connected.status().message() ==
        "communication backend 'nccl' is not built in (nccl needs a SCALESTUDY_CUDA build)");
}

TEST_CASE("rank 0 whose MASTER_PORT another process holds says the port is taken") {
  const int held = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  REQUIRE(::bind(held, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  REQUIRE(::listen(held, 1) == 0);
  socklen_t length = sizeof(address);
  REQUIRE(::getsockname(held, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const int port = ntohs(address.sin_port);
  ConnectOptions options;
  options.timeout = std::chrono::milliseconds(5000);
  auto connected = connect(rank_of_two(0, port), options);
  ::close(held);
  REQUIRE_FALSE(connected.is_ok());
  CHECK(connected.status().message() ==
        "rendezvous port 127.0.0.1:" + std::to_string(port) +
            " is taken on this host (address already in use): another process listens there "
            "or a connection holds it; MASTER_PORT must be free on rank 0's host");
}

TEST_CASE("collectives take tensors dense in their own memory format") {
  torch::Tensor nchw = torch::randn({8, 3, 5, 5});
  torch::Tensor nhwc = nchw.contiguous(at::MemoryFormat::ChannelsLast);
  CHECK_FALSE(nhwc.is_contiguous());  // what the old check rejected
  CHECK(is_dense_in_own_layout(nchw));
  CHECK(is_dense_in_own_layout(nhwc));
  CHECK(is_dense_in_own_layout(torch::randn({7})));
  CHECK_FALSE(is_dense_in_own_layout(torch::randn({4, 6}).t()));
  CHECK_FALSE(is_dense_in_own_layout(torch::randn({10}).slice(0, 0, 10, 2)));
}

TEST_CASE("a buffer broadcast gives every rank rank 0's BatchNorm statistics") {
  const int port = free_port();
  ConnectOptions options;
  options.timeout = std::chrono::milliseconds(60000);
  auto results = on_two_ranks<std::vector<torch::Tensor>>([&](int rank) {
    torch::manual_seed(1);
    torch::nn::BatchNorm2d norm(3);
    // Each rank trains on other data: the running statistics drift apart.
    norm->forward(torch::randn({4, 3, 2, 2}) * (rank + 1) + rank);
    auto connected = connect(rank_of_two(rank, port), options);
    if (!connected) return std::vector<torch::Tensor>{};
    std::vector<torch::Tensor> before = {norm->running_mean.clone()};
    if (!broadcast_buffers(*norm, **connected)) return std::vector<torch::Tensor>{};
    return std::vector<torch::Tensor>{before[0], norm->running_mean.clone(),
                                      norm->running_var.clone(), norm->num_batches_tracked.clone()};
  });
  REQUIRE(results[0].size() == 4);
  REQUIRE(results[1].size() == 4);
  CHECK_FALSE(torch::equal(results[0][0], results[1][0]));  // they had drifted
  CHECK(torch::equal(results[1][1], results[0][0]));        // rank 1 now holds rank 0's
  CHECK(torch::equal(results[0][1], results[0][0]));        // rank 0 kept its own
  CHECK(torch::equal(results[1][2], results[0][2]));
  CHECK(torch::equal(results[1][3], results[0][3]));
}

}  // namespace scalestudy::dist
