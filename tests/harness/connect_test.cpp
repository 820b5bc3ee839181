// dist::connect's one rendezvous, the layout rule of collectives and the buffer broadcast
// before validation, with two ranks as two threads of this process over loopback.
#include "harness/dist/connect.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

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

TEST_CASE("a rank of another launch that reaches this launch's store leaves; this one goes on") {
  const int port = free_port();
  ConnectOptions options;
  options.timeout = std::chrono::milliseconds(60000);
  const auto launch_rank = [&](int rank, const std::string& job_id, const std::string& run_id) {
    RankInfo info = rank_of_two(rank, port);
    info.job_id = job_id;
    info.run_id = run_id;
    return info;
  };
  auto ours = on_two_ranks<Result<std::unique_ptr<Communicator>>>(
      [&](int rank) { return connect(launch_rank(rank, "1001", "run-a"), options); });
  for (auto& connected : ours) REQUIRE_MESSAGE(connected.is_ok(), connected.status().message());
  const std::string store = "rendezvous at TCPStore 127.0.0.1:" + std::to_string(port);
  const std::string why =
      ". Two launches whose rank 0 share a host met at one MASTER_PORT (this launch's rank 0 "
      "could not take it); this rank leaves before joining the other's process group";

  // Job 13769 (1001 + 12768) derived the same port, and its rank 0 found it taken.
  auto other_job = connect(launch_rank(1, "13769", "run-b"), options);
  REQUIRE_FALSE(other_job.is_ok());
  CHECK(other_job.status().message() ==
        store + " is another launch's: its rank 0 has SLURM_JOB_ID=1001, this rank 13769" + why);
  // Another step of the same packed allocation: one job id, another run.
  auto other_run = connect(launch_rank(1, "1001", "run-b"), options);
  REQUIRE_FALSE(other_run.is_ok());
  CHECK(other_run.status().message() ==
        store + " is another launch's: its rank 0 has SCALESTUDY_RUN_ID=run-a, this rank run-b" +
            why);

  auto sums = on_two_ranks<torch::Tensor>([&](int rank) {
    torch::Tensor values = torch::full({3}, rank + 1.0);
    Status reduced = (*ours[rank])->allreduce_sum_async(values)->wait();
    return reduced ? values : torch::Tensor();
  });
  for (const torch::Tensor& sum : sums) {
    REQUIRE(sum.defined());
    CHECK(torch::equal(sum, torch::full({3}, 3.0)));
  }
}

TEST_CASE("a launch mark read from another's store is quoted printable and short") {
  // Whatever serves the port wrote the marks: here a store whose job id forges a log line.
  c10d::TCPStoreOptions server;
  server.port = static_cast<std::uint16_t>(free_port());
  server.isServer = true;
  server.waitWorkers = false;
  c10d::TCPStore store("127.0.0.1", server);
  const std::string forged = "1001\nNVRM: Xid 79" + std::string(200, 'x');
  store.set("scalestudy/launch/SLURM_JOB_ID", std::vector<uint8_t>(forged.begin(), forged.end()));
  RankInfo stray = rank_of_two(1, server.port);
  stray.job_id = "13769";
  ConnectOptions options;
  options.timeout = std::chrono::milliseconds(60000);
  auto connected = connect(stray, options);
  REQUIRE_FALSE(connected.is_ok());
  const std::string message = connected.status().message();
  CHECK(message.find('\n') == std::string::npos);
  CHECK(message.find("its rank 0 has SLURM_JOB_ID=1001\\x0aNVRM: Xid 79" + std::string(63, 'x') +
                     ", this rank 13769.") != std::string::npos);
}

TEST_CASE("a launch mark only one rank has is not compared") {
  const int port = free_port();
  ConnectOptions options;
  options.timeout = std::chrono::milliseconds(60000);
  // Rank 1 started by hand beside an orchestrated rank 0: no run id to compare.
  auto results = on_two_ranks<Result<std::unique_ptr<Communicator>>>([&](int rank) {
    RankInfo info = rank_of_two(rank, port);
    info.job_id = "77";
    if (rank == 0) info.run_id = "run-a";
    if (rank == 1) info.launch_id = "1796000000-4242";
    return connect(info, options);
  });
  for (auto& connected : results) {
    REQUIRE_MESSAGE(connected.is_ok(), connected.status().message());
  }
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
