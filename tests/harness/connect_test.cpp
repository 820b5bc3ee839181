// dist::connect's one rendezvous, the layout rule of collectives and the buffer broadcast
// before validation, with two ranks as two threads of this process over loopback.
#include "harness/dist/connect.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <future>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "harness/dist/parameter_sync.hpp"
#include "harness/dist/tensor_layout.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::dist {
namespace {

// A loopback port nobody listens on right now.
int free_port() {
  int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(socket_fd);
  return ntohs(address.sin_port);
}

RankInfo rank_of_two(int rank, int port) {
  RankInfo info;
  info.rank = rank;
  info.local_rank = rank;
  info.world_size = 2;
  info.local_world_size = 2;
  info.master_addr = "127.0.0.1";
  info.master_port = port;
  return info;
}

// Runs body(rank) for ranks 0 and 1 concurrently; returns both results.
template <typename Value>
std::array<Value, 2> on_two_ranks(const std::function<Value(int)>& body) {
  std::future<Value> rank1 = std::async(std::launch::async, body, 1);
  Value rank0 = body(0);
  return {std::move(rank0), rank1.get()};
}

// What the fake NCCL factory builds: the value it read from the store, and the store,
// kept as the NCCL communicator keeps it.
class StoreProbe : public SelfCommunicator {
 public:
  StoreProbe(std::string seen, c10::intrusive_ptr<c10d::Store> store)
      : seen_(std::move(seen)), store_(std::move(store)) {}
  const std::string& seen() const { return seen_; }

 private:
  std::string seen_;
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace

TEST_CASE("connect joins one store and hands it to the NCCL factory") {
  const int port = free_port();
  ConnectOptions options;
  options.backend = "nccl";
  options.timeout = std::chrono::milliseconds(60000);
  // Stands in for the NCCL factory of a CUDA build: rank 0 publishes a key in the store it
  // is handed and every rank reads it, as the NCCL communicator exchanges its unique id.
  options.nccl_factory =
      [](const RankInfo& rank_info, const ConnectOptions&,
         const c10::intrusive_ptr<c10d::Store>& store) -> Result<std::unique_ptr<Communicator>> {
    if (rank_info.rank == 0) store->set("probe", std::vector<uint8_t>{'i', 'd'});
    std::vector<uint8_t> value = store->get("probe");
    return std::unique_ptr<Communicator>(
        std::make_unique<StoreProbe>(std::string(value.begin(), value.end()), store));
  };
  // Both communicators stay alive until both ranks are done with the store.
  auto results = on_two_ranks<Result<std::unique_ptr<Communicator>>>(
      [&](int rank) { return connect(rank_of_two(rank, port), options); });
  for (auto& connected : results) {
    REQUIRE_MESSAGE(connected.is_ok(), connected.status().message());
    CHECK(dynamic_cast<StoreProbe&>(**connected).seen() == "id");
  }
}

TEST_CASE("without an NCCL factory, nccl is not built in") {
  ConnectOptions options;
  options.backend = "nccl";
  auto connected = connect(rank_of_two(0, free_port()), options);
  REQUIRE_FALSE(connected.is_ok());
  CHECK(connected.status().message() ==
        "communication backend 'nccl' is not built in (available: gloo; nccl needs a "
        "SCALESTUDY_CUDA build)");
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
