#include "orchestrator/results/analysis/bottleneck.hpp"

#include <doctest/doctest.h>

using namespace scalestudy::results;

TEST_CASE("default thresholds: data wait > 5% input-bound, exposed comm > 20% comm-bound") {
  BottleneckThresholds defaults;
  CHECK(classify_bottleneck({4.9, 80, 10, 5}, defaults) == Bottleneck::kCompute);
  CHECK(classify_bottleneck({5.1, 80, 10, 4}, defaults) == Bottleneck::kInput);
  CHECK(classify_bottleneck({1, 60, 25, 4}, defaults) == Bottleneck::kCommunication);
  CHECK(classify_bottleneck({1, 70, 20, 4}, defaults) == Bottleneck::kCompute);
}

TEST_CASE("both exceeded: the larger excess over its threshold wins") {
  BottleneckThresholds defaults;
  CHECK(classify_bottleneck({6, 40, 50, 4}, defaults) == Bottleneck::kCommunication);
  CHECK(classify_bottleneck({20, 40, 25, 4}, defaults) == Bottleneck::kInput);
}

TEST_CASE("thresholds are configurable") {
  BottleneckThresholds strict{2, 10};
  CHECK(classify_bottleneck({3, 80, 5, 5}, strict) == Bottleneck::kInput);
  CHECK(classify_bottleneck({1, 80, 12, 5}, strict) == Bottleneck::kCommunication);
  CHECK(std::string(to_string(Bottleneck::kCommunication)) == "communication");
}
