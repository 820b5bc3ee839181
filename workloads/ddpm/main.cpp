// scalestudy-ddpm: data-parallel training of a DDPM (UNet noise predictor) on the MNIST
// family, or, with --sample N, a PNG grid of generated images. The driver owns flags,
// ranks, communication, timing and the run record; this binary only names its workload.
#include "harness/train/driver.hpp"
#include "workloads/ddpm/ddpm_workload.hpp"

int main(int argc, char** argv) {
  scalestudy::ddpm::DdpmWorkload workload;
  return scalestudy::train::run_workload(argc, argv, workload);
}
