// scaled_study: the shared fixture's recorded GPU study made a weak-scaling study at N ranks
// (scaled_run.hpp), with the suites' planted outliers, for
// benchmarks/orchestrator/rank_scale_benchmark.sh.
//   usage: scaled_study RECORDED_STUDY_DIR OUT_DIR RANKS NODES
#include <cstdio>
#include <string>

#include "tests/results/scaled_run.hpp"

int main(int argc, char** argv) {
  using namespace scalestudy::results::testing;
  if (argc != 5) {
    std::fprintf(stderr, "usage: scaled_study RECORDED_STUDY_DIR OUT_DIR RANKS NODES\n");
    return 2;
  }
  RankScale scale;
  try {
    scale.world_size = std::stoi(argv[3]);
    scale.nodes = std::stoi(argv[4]);
  } catch (const std::exception&) {
    std::fprintf(stderr, "scaled_study: RANKS and NODES are numbers\n");
    return 2;
  }
  scale.outliers = planted_outliers(scale);
  auto study = write_weak_study_at_scale(argv[1], argv[2], scale);
  if (!study) {
    std::fprintf(stderr, "scaled_study: %s\n", study.status().message().c_str());
    return 1;
  }
  std::printf("%s\n", study->c_str());
  return 0;
}
