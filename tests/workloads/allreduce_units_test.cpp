// The pieces of scalestudy-allreduce on real tensors: the message sizes of a sweep, the
// element types, and the all-reduce hooks (bus factor, inputs, and a correctness check
// that passes a true sum of every rank's input and catches what a broken reduction leaves).
#include "tests/harness/torch_doctest.hpp"
#include "workloads/allreduce/allreduce_collective.hpp"
#include "workloads/allreduce/element_type.hpp"
#include "workloads/allreduce/message_sizes.hpp"
#include "workloads/allreduce/sweep_table.hpp"

namespace scalestudy::collectives {
namespace {

// What a correct all-reduce leaves on every rank: the sum of all ranks' inputs, summed in
// the element type.
torch::Tensor reduced_inputs(const AllreduceCollective& allreduce, const ElementType& type,
                             int64_t elements, int ranks) {
  torch::Tensor sum = torch::zeros({elements}, torch::dtype(type.scalar_type));
  for (int rank = 0; rank < ranks; ++rank) {
    torch::Tensor input = torch::empty({elements}, torch::dtype(type.scalar_type));
    allreduce.fill_input(input, rank);
    sum.add_(input);
  }
  return sum;
}

}  // namespace

TEST_CASE("byte sizes are digits with an optional binary K, M or G") {
  CHECK(*parse_byte_size("8") == 8);
  CHECK(*parse_byte_size("64K") == 65536);
  CHECK(*parse_byte_size("32M") == 32 << 20);
  CHECK(*parse_byte_size("1G") == int64_t{1} << 30);
  for (std::string bad : {"", "K", "1.5M", "-8", "8KB", "12T", "99999999999999G"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_byte_size(bad).is_ok());
  }
}

TEST_CASE("a sweep multiplies by the step factor up to the maximum, in whole elements") {
  CHECK(*sweep_sizes({8, 64, 2}, 4) == std::vector<int64_t>{8, 16, 32, 64});
  CHECK(*sweep_sizes({1024, 100000, 4}, 4) == std::vector<int64_t>{1024, 4096, 16384, 65536});
  // 6 → 4 bytes, then 12, 24, 48: rounded down to whole 4-byte elements.
  CHECK(*sweep_sizes({6, 48, 2}, 4) == std::vector<int64_t>{4, 12, 24, 48});
  // 1, 2 and 4 bytes hold no 8-byte element and are dropped; 8 and 16 remain.
  CHECK(*sweep_sizes({1, 16, 2}, 8) == std::vector<int64_t>{8, 16});
  CHECK(sweep_sizes({1, 3, 2}, 4).status().message().find("holds one 4-byte element") !=
        std::string::npos);
  CHECK_FALSE(sweep_sizes({64, 8, 2}, 4).is_ok());
  CHECK_FALSE(sweep_sizes({0, 8, 2}, 4).is_ok());
  CHECK(sweep_sizes({8, 64, 1}, 4).status().message().find("--step-factor") != std::string::npos);
}

TEST_CASE("element types: torch type, size and unit roundoff") {
  CHECK((parse_element_type("float32")->scalar_type == torch::kFloat32));
  CHECK(parse_element_type("float32")->bytes() == 4);
  CHECK(parse_element_type("bfloat16")->bytes() == 2);
  CHECK((parse_element_type("float16")->scalar_type == torch::kFloat16));
  // The roundoff is half the gap between 1 and the type's next value: 1 + 2u is a value
  // of the type, 1 + u (a tie) rounds to even, back to 1.
  for (std::string name : {"float32", "bfloat16", "float16"}) {
    CAPTURE(name);
    ElementType type = *parse_element_type(name);
    auto in_type = [&](double value) {
      return torch::tensor({value}, torch::kFloat64).to(type.scalar_type).item<double>();
    };
    CHECK(in_type(1 + 2 * type.unit_roundoff) == 1 + 2 * type.unit_roundoff);
    CHECK(in_type(1 + type.unit_roundoff) == 1);
  }
  CHECK(parse_element_type("float64").status().message().find("float64") != std::string::npos);
}

TEST_CASE("all-reduce bus factor is 2(n-1)/n") {
  AllreduceCollective allreduce;
  CHECK(allreduce.op_name() == "allreduce");
  CHECK(allreduce.bus_factor(1) == 0.0);
  CHECK(allreduce.bus_factor(2) == 1.0);
  CHECK(allreduce.bus_factor(4) == 1.5);
  CHECK(allreduce.bus_factor(8) == 1.75);
}

TEST_CASE("inputs differ between ranks and along the buffer") {
  AllreduceCollective allreduce;
  torch::Tensor rank0 = torch::empty({6});
  torch::Tensor rank1 = torch::empty({6});
  allreduce.fill_input(rank0, 0);
  allreduce.fill_input(rank1, 1);
  CHECK(torch::equal(rank0, torch::tensor({1.0f, 2.0f, 3.0f, 4.0f, 1.0f, 2.0f})));
  CHECK(torch::equal(rank1, torch::tensor({2.0f, 3.0f, 4.0f, 1.0f, 2.0f, 3.0f})));
}

TEST_CASE("the check passes a true sum and counts what a broken reduction leaves") {
  AllreduceCollective allreduce;
  for (std::string name : {"float32", "bfloat16", "float16"}) {
    ElementType type = *parse_element_type(name);
    for (int ranks : {1, 2, 3, 8, 64}) {
      CAPTURE(name);
      CAPTURE(ranks);
      torch::Tensor result = reduced_inputs(allreduce, type, 1000, ranks);
      CHECK(allreduce.count_wrong(result, ranks, type.unit_roundoff) == 0);

      torch::Tensor corrupted = result.clone();
      corrupted[17] += 1;
      corrupted[500] = std::nan("");
      CHECK(allreduce.count_wrong(corrupted, ranks, type.unit_roundoff) == 2);
    }
  }
  ElementType float32 = *parse_element_type("float32");
  // One rank's contribution missing: every element is short by that rank's input.
  torch::Tensor missing_rank = reduced_inputs(allreduce, float32, 1000, 3);
  CHECK(allreduce.count_wrong(missing_rank, 4, float32.unit_roundoff) == 1000);
  // A chunk shifted by one element: the pattern changes at every index.
  torch::Tensor shifted = reduced_inputs(allreduce, float32, 1000, 2);
  shifted.narrow(0, 0, 100).copy_(shifted.narrow(0, 1, 100).clone());
  CHECK(allreduce.count_wrong(shifted, 2, float32.unit_roundoff) == 100);
  // Past the exactly summable range (bfloat16 on 128 ranks: sums up to 512 > 256) the
  // check allows the rounding of 127 additions and no more.
  ElementType bfloat16 = *parse_element_type("bfloat16");
  torch::Tensor large = reduced_inputs(allreduce, bfloat16, 1000, 128);
  CHECK(allreduce.count_wrong(large, 128, bfloat16.unit_roundoff) == 0);
  large[3] *= 2;
  CHECK(allreduce.count_wrong(large, 128, bfloat16.unit_roundoff) == 1);
}

TEST_CASE("the table prints one nccl-tests-like row per size and the wrong-value verdict") {
  SizeResult result;
  result.row.bytes = 1048576;
  result.row.dtype = "float32";
  result.row.time_us = 2000;
  result.row.algbw_gbps = 0.524288;
  result.row.busbw_gbps = 0.524288;
  result.elements = 262144;
  const std::string row = sweep_table_row(result, "sum");
  CHECK(row ==
        "      1048576         262144   float32    sum    2000.00    0.524    0.524       0\n");
  CHECK(sweep_table_header("t").find("#wrong") != std::string::npos);
  SizeResult wrong = result;
  wrong.wrong = 3;
  wrong.row.busbw_gbps = 1.5;
  CHECK(average_busbw_gbps({result, wrong}) == doctest::Approx(1.012144));
  CHECK(sweep_table_footer({result}).find("Out of bounds values : 0 OK") != std::string::npos);
  CHECK(sweep_table_footer({result, wrong}).find("Out of bounds values : 3 FAILED") !=
        std::string::npos);
}

}  // namespace scalestudy::collectives
