// A rank of the communicator tests, started by scalestudy-launch. Modes:
//   allreduce  bucketed gradient averaging during a real backward (overlap on and off,
//              several bucket caps) must equal the mean of every rank's gradient, which
//              each rank recomputes locally; also scalar reductions and broadcast, and
//              a dtype gloo cannot reduce fails as this rank's fault, not a peer's.
//   hang       rank 1 joins and then stays silent; rank 0's all-reduce must fail with
//              "peer rank died or timed out" after about --timeout-s, not hang.
// Exit code 0 when the rank saw what it expected; the message says what differed.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "harness/dist/connect.hpp"
#include "harness/dist/gradient_bucketer.hpp"
#include "harness/dist/parameter_sync.hpp"

namespace {

using namespace scalestudy;

torch::nn::Sequential make_model() {
  return torch::nn::Sequential(torch::nn::Linear(16, 64), torch::nn::ReLU(),
                               torch::nn::Linear(64, 256), torch::nn::ReLU(),
                               torch::nn::Linear(256, 4));
}

torch::Tensor rank_input(int rank) {
  return torch::randn({8, 16}, torch::TensorOptions().dtype(torch::kFloat32))
      .mul(rank + 1)
      .add(rank);
}

// Every parameter's gradient of rank `rank`'s loss, without any communication.
std::vector<torch::Tensor> local_gradients(torch::nn::Sequential& model, int rank) {
  model->zero_grad();
  torch::manual_seed(100 + rank);
  model->forward(rank_input(rank)).pow(2).mean().backward();
  std::vector<torch::Tensor> gradients;
  for (auto& parameter : model->parameters()) gradients.push_back(parameter.grad().clone());
  return gradients;
}

int fail(int rank, const std::string& message) {
  std::fprintf(stderr, "rank %d: %s\n", rank, message.c_str());
  return 1;
}

int run_allreduce(dist::Communicator& communicator) {
  int rank = communicator.rank(), world = communicator.world_size();
  torch::manual_seed(rank);  // different initial weights on purpose
  auto model = make_model();
  if (Status synced = dist::broadcast_module_state(*model, communicator); !synced) {
    return fail(rank, synced.message());
  }
  std::vector<torch::Tensor> expected;
  for (int peer = 0; peer < world; ++peer) {
    auto gradients = local_gradients(model, peer);
    if (expected.empty())
      expected = gradients;
    else
      for (size_t i = 0; i < gradients.size(); ++i) expected[i] += gradients[i];
  }
  for (auto& gradient : expected) gradient /= world;

  for (bool overlap : {true, false}) {
    for (double cap_mb : {0.01, 25.0}) {
      dist::BucketerOptions options;
      options.overlap = overlap;
      options.bucket_cap_mb = cap_mb;
      dist::GradientBucketer bucketer(model->parameters(), communicator, options);
      model->zero_grad();
      bucketer.start_step();
      torch::manual_seed(100 + rank);
      model->forward(rank_input(rank)).pow(2).mean().backward();
      if (Status finished = bucketer.finish(); !finished) return fail(rank, finished.message());
      auto parameters = model->parameters();
      for (size_t i = 0; i < parameters.size(); ++i) {
        double difference = (parameters[i].grad() - expected[i]).abs().max().item<double>();
        if (difference > 1e-6) {
          return fail(rank, "overlap " + std::to_string(overlap) + " cap " +
                                std::to_string(cap_mb) + ": parameter " + std::to_string(i) +
                                " differs from the mean by " + std::to_string(difference));
        }
      }
      if (cap_mb < 1 && bucketer.buckets().size() < 2 && overlap) {
        return fail(rank, "a 0.01 MB cap should give several buckets");
      }
    }
  }
  std::vector<double> values = {1.0 + rank, 10.0 * rank};
  if (Status reduced = communicator.allreduce_scalars(values, dist::ScalarReduction::kMax);
      !reduced) {
    return fail(rank, reduced.message());
  }
  if (values[0] != world || values[1] != 10.0 * (world - 1)) return fail(rank, "max reduction");
  if (communicator.backend() == "gloo") {
    // No gloo reduces complex tensors (PyTorch's Python layer views them as real first).
    Status refused =
        communicator.allreduce_sum_async(torch::ones({4}, torch::kComplexFloat))->wait();
    if (refused || refused.message().find(
                       "gloo in this LibTorch cannot reduce the tensor's type: all-reduce") != 0) {
      return fail(rank, "complex all-reduce: " + (refused ? "succeeded" : refused.message()));
    }
  }
  std::printf("rank %d: bucketed all-reduce equals the mean\n", rank);
  return 0;
}

int run_hang(dist::Communicator& communicator, double timeout_s) {
  int rank = communicator.rank();
  if (rank != 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(timeout_s + 5));
    return 0;
  }
  auto started = std::chrono::steady_clock::now();
  torch::Tensor tensor = torch::ones({1024});
  Status waited = communicator.allreduce_sum_async(tensor)->wait();
  double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("rank 0: all-reduce returned after %.2f s: %s\n", elapsed_s,
              waited ? "ok" : waited.message().c_str());
  if (waited) return fail(rank, "the all-reduce succeeded without its peer");
  if (waited.message().find("peer rank died or timed out") == std::string::npos) {
    return fail(rank, "unexpected message");
  }
  if (elapsed_s < timeout_s * 0.9 || elapsed_s > timeout_s + 10) {
    return fail(rank, "the timeout did not bound the wait");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "allreduce";
  double timeout_s = argc > 2 ? std::atof(argv[2]) : 30;
  torch::set_num_threads(1);
  auto rank_info = dist::discover_ranks(dist::process_environment());
  if (!rank_info) return fail(-1, rank_info.status().message());
  dist::ConnectOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  auto communicator = dist::connect(*rank_info, options);
  if (!communicator) return fail(rank_info->rank, communicator.status().message());
  int code = mode == "hang" ? run_hang(**communicator, timeout_s) : run_allreduce(**communicator);
  std::fflush(stdout);
  std::_Exit(code);  // skip the process group's teardown after a deliberate failure
}
