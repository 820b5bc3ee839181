// The training loop's late reads, on the CPU: a scalar copied towards the host keeps the
// value it had when the copy started, step losses come back one step late and in order,
// and the ranks' asynchronous stop vote is read one check interval after it was launched —
// on gloo with its blocking wait() a check later, off the measured window's hot path.
// cuda_path_test.cpp runs the device side of the same pieces.
#include "harness/train/scalar_readback.hpp"
#include "harness/train/stop_agreement.hpp"
#include "tests/gpu/peer_communicator.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::train {
namespace {

const torch::Device kCpu(torch::kCPU);

TEST_CASE("a readback keeps the value its start() copied") {
  ScalarReadback readback(kCpu);
  torch::Tensor loss = torch::full({}, 2.5f);
  readback.start(loss);
  loss.fill_(7.0f);
  CHECK(readback.read() == 2.5);
  readback.start(torch::full({1}, 0.125, torch::kFloat64));
  CHECK(readback.read() == 0.125);
}

TEST_CASE("step losses come back one step late, the last one drained") {
  StepLossReadback losses(kCpu);
  CHECK_FALSE(losses.drain().has_value());
  CHECK_FALSE(losses.push(torch::full({}, 1.0f)).has_value());
  CHECK(losses.push(torch::full({}, 2.0f)) == 1.0);
  CHECK(losses.push(torch::full({}, 3.0f)) == 2.0);
  CHECK(losses.drain() == 3.0);
  CHECK_FALSE(losses.drain().has_value());
  // After a drain (an epoch's end, a checkpoint) the next step starts afresh.
  CHECK_FALSE(losses.push(torch::full({}, 4.0f)).has_value());
  CHECK(losses.drain() == 4.0);
}

TEST_CASE("a stop asked for before a check is agreed at the next check, a wait later") {
  double peer_vote = 0;
  testing::PeerCommunicator gloo("gloo", [&](const torch::Tensor& vote) { vote.add_(peer_vote); });
  StopAgreement agreement(gloo, kCpu, 3);
  CHECK(*agreement.at_boundary(0, false) == false);  // launches the first vote
  CHECK(gloo.launches == 1);
  CHECK(gloo.waits == 0);  // gloo's wait blocks: left for the next check
  for (int64_t step : {1, 2}) CHECK(*agreement.at_boundary(step, true) == false);
  CHECK(gloo.launches == 1);                         // nothing between checks
  peer_vote = 1;                                     // the other rank heard a signal
  CHECK(*agreement.at_boundary(3, false) == false);  // step 0's vote: nobody asked
  CHECK(gloo.waits == 1);
  CHECK(gloo.launches == 2);
  for (int64_t step : {4, 5}) CHECK(*agreement.at_boundary(step, false) == false);
  CHECK(*agreement.at_boundary(6, false) == true);  // step 3's vote: the peer asked
  CHECK(gloo.launches == 2);                        // stopping: no further vote
  CHECK(agreement.settle().is_ok());
  CHECK(gloo.waits == 2);
}

TEST_CASE("this rank's own request is agreed one interval late as well") {
  testing::PeerCommunicator gloo("gloo", [](const torch::Tensor&) {});
  StopAgreement agreement(gloo, kCpu, 1);
  CHECK(*agreement.at_boundary(7, true) == false);
  CHECK(*agreement.at_boundary(8, false) == true);
}

TEST_CASE("settle() waits for the vote in flight, and the next check launches afresh") {
  testing::PeerCommunicator gloo("gloo", [](const torch::Tensor& vote) { vote.add_(1); });
  StopAgreement agreement(gloo, kCpu, 2);
  CHECK(*agreement.at_boundary(2, false) == false);
  CHECK(agreement.settle().is_ok());
  CHECK(gloo.waits == 1);
  CHECK(agreement.settle().is_ok());  // nothing left
  CHECK(gloo.waits == 1);
  CHECK(*agreement.at_boundary(4, false) == false);  // the settled vote is not read
  CHECK(*agreement.at_boundary(6, false) == true);
}

TEST_CASE("a failed vote is the step's error, named") {
  testing::PeerCommunicator gloo("gloo", [](const torch::Tensor&) {});
  gloo.wait_status = Status::error("peer rank died or timed out: all-reduce");
  StopAgreement agreement(gloo, kCpu, 1);
  CHECK(*agreement.at_boundary(1, false) == false);
  Result<bool> second = agreement.at_boundary(2, false);
  REQUIRE_FALSE(second.is_ok());
  CHECK(second.status().message() == "stop agreement: peer rank died or timed out: all-reduce");
}

}  // namespace
}  // namespace scalestudy::train
