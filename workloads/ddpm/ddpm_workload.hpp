// DdpmWorkload: what scalestudy-ddpm plugs into the driver. By default it trains: the
// shared data-parallel loop (TrainingWorkload) around DdpmTask, then rank 0 saves the
// weights to --checkpoint when given. With --sample N it generates instead: rank 0 loads
// --checkpoint, runs ancestral sampling on the run's device in batches of
// --eval-batch-size and writes an N-image PNG grid to --sample-png (other ranks have
// nothing to do); the summary records sampled_images and sampling_s. Unset, --batch-size defaults
// to the preset's per-GPU batch, and the optimizer to AdamW at 2e-4, the usual DDPM setting. Used
// by the driver's thread only.
#pragma once

#include <string>

#include "harness/train/training_workload.hpp"
#include "workloads/ddpm/ddpm_config.hpp"
#include "workloads/ddpm/ddpm_task.hpp"

namespace scalestudy::ddpm {

class DdpmWorkload : public train::Workload {
 public:
  DdpmWorkload() : training_("ddpm", task_) {}

  std::string name() const override { return "ddpm"; }
  void declare_flags(train::Flags& flags) const override;
  void derive_defaults(train::Flags& flags) const override;
  Status validate(const train::Flags& flags) const override;
  Status run(train::RunContext& context) override;

 private:
  Status generate(train::RunContext& context, const DdpmConfig& config);

  DdpmTask task_;  // before training_, which refers to it
  train::TrainingWorkload training_;
};

}  // namespace scalestudy::ddpm
