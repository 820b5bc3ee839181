// ProcessGroupCommunicator over gloo — the lines the NCCL backend runs on the GPU: a world
// of one given a process group, the settings it records, the failures it reports, and that
// a peer failure sticks while a refused tensor does not.
#include "harness/dist/process_group_communicator.hpp"

#include <chrono>
#include <future>

#include "harness/dist/connect.hpp"
#include "tests/harness/loopback_ranks.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::dist {
namespace {

using Clock = std::chrono::steady_clock;

ConnectOptions one_rank_group_options() {
  ConnectOptions options;
  options.timeout = std::chrono::milliseconds(30000);
  options.one_rank_process_group = true;
  return options;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

TEST_CASE("one rank with a process group runs every collective through gloo") {
  auto connected =
      connect(testing::loopback_rank(0, 1, testing::free_port()), one_rank_group_options());
  REQUIRE_MESSAGE(connected.is_ok(), connected.status().message());
  Communicator& communicator = **connected;
  CHECK(communicator.backend() == "gloo");
  CHECK(communicator.world_size() == 1);
  CHECK(communicator.communicates());
  std::map<std::string, std::string> settings = communicator.settings();
  CHECK(settings["process_group"] == "gloo");
  CHECK(settings["process_group_size"] == "1");
  CHECK(settings["process_group_store"] == "HashStore");
  CHECK(settings["process_group_timeout_ms"] == "30000");
  CHECK(settings["process_group_gloo_devices"] == "127.0.0.1");

  torch::Tensor gradients = torch::arange(6, torch::kFloat32);
  REQUIRE(communicator.allreduce_sum_async(gradients)->wait());
  CHECK(torch::equal(gradients, torch::arange(6, torch::kFloat32)));
  std::vector<double> scalars = {2.5, -1};
  REQUIRE(communicator.allreduce_scalars(scalars, ScalarReduction::kMax));
  CHECK(scalars == std::vector<double>{2.5, -1});
  REQUIRE(communicator.broadcast(gradients, 0));
  REQUIRE(communicator.barrier());
}

TEST_CASE("one rank without a process group gets the self communicator") {
  auto connected = connect(testing::loopback_rank(0, 1, testing::free_port()), ConnectOptions());
  REQUIRE(connected.is_ok());
  CHECK((*connected)->backend() == "none");
  CHECK_FALSE((*connected)->communicates());
  CHECK((*connected)->settings() == std::map<std::string, std::string>{{"process_group", "none"}});
}

TEST_CASE("a tensor the backend refuses fails that collective alone") {
  auto connected =
      connect(testing::loopback_rank(0, 1, testing::free_port()), one_rank_group_options());
  REQUIRE(connected.is_ok());
  Status refused = (*connected)->allreduce_sum_async(torch::randn({4, 6}).t())->wait();
  CHECK(refused.message() == "gloo all-reduce needs a tensor dense in its memory format");
  CHECK((*connected)->allreduce_sum_async(torch::ones({3}))->wait());
}

TEST_CASE("a silent peer fails a blocking collective within the timeout, and the failure sticks") {
  const int port = testing::free_port();
  ConnectOptions options;
  options.timeout = std::chrono::milliseconds(2000);
  std::promise<void> rank0_done;
  std::shared_future<void> rank0_finished = rank0_done.get_future().share();
  auto messages = testing::on_two_ranks<std::vector<std::string>>([&](int rank) {
    auto connected = connect(testing::loopback_rank(rank, 2, port), options);
    if (!connected) {
      if (rank == 0) rank0_done.set_value();
      return std::vector<std::string>{connected.status().message()};
    }
    if (rank == 1) {  // joins, then issues nothing until rank 0 is done
      rank0_finished.wait();
      return std::vector<std::string>{};
    }
    const auto started = Clock::now();
    Status barrier = (*connected)->barrier();
    const double barrier_s = seconds_since(started);
    const auto again = Clock::now();
    Status later = (*connected)->allreduce_sum_async(torch::ones({4}))->wait();
    const double later_s = seconds_since(again);
    rank0_done.set_value();
    return std::vector<std::string>{barrier.message(), later.message(), std::to_string(barrier_s),
                                    std::to_string(later_s)};
  });
  REQUIRE(messages[0].size() == 4);
  INFO(messages[0][0]);
  CHECK(messages[0][0].rfind("peer rank died or timed out: gloo barrier: ", 0) == 0);
  CHECK(messages[0][1] == messages[0][0]);  // the first failure, without touching gloo
  CHECK(std::stod(messages[0][2]) > 2.0 * 0.9);
  CHECK(std::stod(messages[0][2]) < 2.0 + 10);
  // A call that reached gloo again would wait out the 2 s timeout; the stuck failure does not.
  CHECK(std::stod(messages[0][3]) < 2.0 * 0.5);
  CHECK(messages[1].empty());
}

}  // namespace scalestudy::dist
