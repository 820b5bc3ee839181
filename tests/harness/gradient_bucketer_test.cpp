#include "harness/dist/gradient_bucketer.hpp"

#include "harness/dist/communicator.hpp"
#include "tests/harness/child_process.hpp"
#include "tests/harness/torch_doctest.hpp"

namespace scalestudy::dist {
namespace {

using Indices = std::vector<std::vector<size_t>>;

Indices indices_of(const std::vector<BucketLayout>& layouts) {
  Indices indices;
  for (const BucketLayout& layout : layouts) indices.push_back(layout.parameter_indices);
  return indices;
}

// Float parameters of 100, 300000 (1.2 MB), 50000 (0.2 MB) and 10 elements, plus a frozen one.
std::vector<torch::Tensor> parameters() {
  std::vector<torch::Tensor> tensors;
  for (int64_t size : {100, 300000, 50000, 10}) {
    tensors.push_back(torch::zeros({size}, torch::requires_grad()));
  }
  tensors.push_back(torch::zeros({7}));
  return tensors;
}

// Two small layers' parameters and the gradients a plain backward gives them.
struct TwoLayers {
  TwoLayers() {
    for (const auto& parameter : first->parameters()) all.push_back(parameter);
    for (const auto& parameter : second->parameters()) all.push_back(parameter);
    backward();
    for (const auto& parameter : all) plain.push_back(parameter.grad().clone());
  }
  void backward() { second->forward(torch::relu(first->forward(input))).sum().backward(); }

  torch::nn::Linear first{8, 32}, second{32, 2};
  torch::Tensor input = torch::randn({4, 8});
  std::vector<torch::Tensor> all;
  std::vector<torch::Tensor> plain;
};

// A world of two whose other rank always holds the same gradients: the sum doubles every
// bucket in place, so the average equals this rank's gradient. Counts the all-reduces.
class MirroredPeer : public SelfCommunicator {
 public:
  int world_size() const override { return 2; }
  std::unique_ptr<CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override {
    ++allreduces;
    tensor.mul_(2);
    return SelfCommunicator::allreduce_sum_async(tensor);
  }
  int allreduces = 0;
};

}  // namespace

TEST_CASE("buckets follow reverse parameter order within the caps") {
  std::vector<torch::Tensor> tensors = parameters();
  BucketerOptions options;

  SUBCASE("a small first bucket, then the cap") {
    options.bucket_cap_mb = 25;
    options.first_bucket_cap_mb = 1;
    auto layouts = plan_buckets(tensors, options);
    CHECK(indices_of(layouts) == Indices{{3, 2}, {1, 0}});
    CHECK(layouts[0].bytes == (10 + 50000) * 4);
    CHECK(layouts[1].bytes == (300000 + 100) * 4);
  }
  SUBCASE("a parameter larger than the cap gets a bucket of its own") {
    options.bucket_cap_mb = 0.5;
    auto layouts = plan_buckets(tensors, options);
    CHECK(indices_of(layouts) == Indices{{3, 2}, {1}, {0}});
  }
  SUBCASE("without overlap every gradient forms one bucket") {
    options.overlap = false;
    options.bucket_cap_mb = 0.01;
    CHECK(indices_of(plan_buckets(tensors, options)) == Indices{{3, 2, 1, 0}});
  }
}

TEST_CASE("with one rank the bucketer leaves the gradients to autograd") {
  TwoLayers layers;
  SelfCommunicator self;
  BucketerOptions options;
  options.bucket_cap_mb = 0.0001;  // 104 bytes: one bucket per parameter
  GradientBucketer bucketer(layers.all, self, options);
  CHECK_FALSE(bucketer.reduces());
  CHECK(bucketer.buckets().size() == layers.all.size());  // the plan, not executed
  CHECK(bucketer.gradient_bytes() == (8 * 32 + 32 + 32 * 2 + 2) * 4);
  for (auto& parameter : layers.all) parameter.mutable_grad() = torch::Tensor();
  bucketer.start_step();
  layers.backward();
  std::vector<const void*> produced;
  for (const auto& parameter : layers.all) produced.push_back(parameter.grad().data_ptr());
  REQUIRE(bucketer.finish());
  for (size_t i = 0; i < layers.all.size(); ++i) {
    CHECK(layers.all[i].grad().data_ptr() == produced[i]);  // not copied
    CHECK(torch::equal(layers.all[i].grad(), layers.plain[i]));
  }
}

TEST_CASE("with several ranks the gradients are views into the buckets") {
  TwoLayers layers;
  MirroredPeer peer;
  BucketerOptions options;
  options.bucket_cap_mb = 0.0005;  // 524 bytes: several buckets
  GradientBucketer bucketer(layers.all, peer, options);
  REQUIRE(bucketer.reduces());
  REQUIRE(bucketer.buckets().size() > 1);
  std::vector<const void*> views;
  for (const auto& parameter : layers.all) views.push_back(parameter.grad().data_ptr());

  SUBCASE("steps average in place and never accumulate across steps") {
    for (int step = 0; step < 3; ++step) {
      bucketer.start_step();
      layers.backward();
      REQUIRE(bucketer.finish());
      for (size_t i = 0; i < layers.all.size(); ++i) {
        CHECK(layers.all[i].grad().data_ptr() == views[i]);
        CHECK(torch::allclose(layers.all[i].grad(), layers.plain[i]));
      }
    }
    CHECK(peer.allreduces == 3 * static_cast<int>(bucketer.buckets().size()));
  }
  SUBCASE("a gradient set to none goes back into its bucket") {
    for (auto& parameter : layers.all) parameter.mutable_grad() = torch::Tensor();
    bucketer.start_step();
    layers.backward();
    REQUIRE(bucketer.finish());
    for (size_t i = 0; i < layers.all.size(); ++i) {
      CHECK(layers.all[i].grad().data_ptr() == views[i]);
      CHECK(torch::allclose(layers.all[i].grad(), layers.plain[i]));
    }
  }
  SUBCASE("a gradient backward never produced is zero") {
    bucketer.start_step();
    REQUIRE(bucketer.finish());
    for (const auto& parameter : layers.all)
      CHECK(parameter.grad().abs().sum().item<double>() == 0);
  }
}

TEST_CASE("two processes: bucketed all-reduce during backward equals the mean gradient") {
  std::string dir = testing::fresh_dir("bucketer");
  auto run = testing::run_to_end({testing::binary("scalestudy-launch"), "--nproc-per-node", "2",
                                  "--", testing::binary("harness_dist_probe"), "allreduce", "60"},
                                 {}, dir + "/out.txt", 120);
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK(run.output.find("rank 0: bucketed all-reduce equals the mean") != std::string::npos);
  CHECK(run.output.find("rank 1: bucketed all-reduce equals the mean") != std::string::npos);
}

TEST_CASE("a silent peer makes the all-reduce fail after the timeout instead of hanging") {
  std::string dir = testing::fresh_dir("bucketer-hang");
  // The timeout (15 s) also bounds the rendezvous: room for one rank to start late on a
  // loaded machine. The silent rank then sleeps 5 s past it.
  auto run = testing::run_to_end(
      {testing::binary("scalestudy-launch"), "--nproc-per-node", "2", "--grace-s", "1", "--",
       testing::binary("harness_dist_probe"), "hang", "15"},
      {}, dir + "/out.txt", 120);
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK(run.output.find("peer rank died or timed out") != std::string::npos);
}

}  // namespace scalestudy::dist
