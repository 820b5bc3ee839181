// scalestudy-allreduce: the all-reduce bandwidth sweep (nccl-tests semantics) over the
// run's communicator, gloo on the CPU or NCCL on the GPU. The driver owns flags, ranks,
// communication and the run record; the sweep owns timing and output; this binary only
// names its collective.
#include "harness/train/driver.hpp"
#include "workloads/allreduce/allreduce_collective.hpp"
#include "workloads/allreduce/collective_sweep.hpp"

int main(int argc, char** argv) {
  scalestudy::collectives::AllreduceCollective allreduce;
  scalestudy::collectives::CollectiveSweep workload(allreduce);
  return scalestudy::train::run_workload(argc, argv, workload);
}
