// TrainingWorkload: the data-parallel training loop, in the role of nccl-tests' common
// driver, around a TrainingTask; run() runs one TrainingLoop (training_loop.hpp names the
// loop's files and the rooms around it). Per step: data wait, forward, backward with bucketed
// all-reduces overlapping it, exposed communication wait, optimizer step — each a timed
// phase and an NVTX range, one `steps` row. Per epoch: global training and (sharded,
// sum-reduced) validation metrics, global throughput, one `epochs` row and, on rank 0, one
// human line ("Epoch [3/3] LR 0.0500 | Loss (train, val) ... | Throughput ... img/s").
// Between steps: checkpoints (--checkpoint-every, and on SIGTERM / SIGINT a last one, after
// which the run stops with RunContext::checkpointed set); at the start, a resume from the
// run directory's checkpoint when there is one. See docs/checkpoint-resume.md.
// Used by the driver's thread only.
#pragma once

#include <string>

#include "harness/train/training_task.hpp"
#include "harness/train/workload.hpp"

namespace scalestudy::train {

class TrainingWorkload : public Workload {
 public:
  TrainingWorkload(std::string name, TrainingTask& task) : name_(std::move(name)), task_(task) {}

  std::string name() const override { return name_; }
  void declare_flags(Flags& flags) const override;
  Status validate(const Flags& flags) const override;
  Status run(RunContext& context) override;

 private:
  std::string name_;
  TrainingTask& task_;
};

}  // namespace scalestudy::train
