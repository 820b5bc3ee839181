// scalestudy-lm: data-parallel training of a decoder-only transformer language model on
// byte tokens of a text corpus (Debian's fortunes by default) or synthetic tokens. The
// driver owns flags, ranks, communication, timing and the run record; this binary only
// names its workload.
#include "harness/train/driver.hpp"
#include "workloads/lm/lm_workload.hpp"

int main(int argc, char** argv) {
  scalestudy::lm::LmWorkload workload;
  return scalestudy::train::run_workload(argc, argv, workload);
}
