// LmWorkload: what scalestudy-lm plugs into the driver — the shared data-parallel loop
// (TrainingWorkload) around LmTask, with a language model's defaults: AdamW at 1e-3
// (nanoGPT's character-level setting), weight decay 0.1, and the preset's shape and
// per-GPU batch where the command line left them unset. Used by the driver's thread only.
#pragma once

#include <string>

#include "harness/train/training_workload.hpp"
#include "workloads/lm/lm_task.hpp"

namespace scalestudy::lm {

class LmWorkload : public train::Workload {
 public:
  LmWorkload() : training_("lm", task_) {}

  std::string name() const override { return "lm"; }
  void declare_flags(train::Flags& flags) const override {
    training_.declare_flags(flags);
    flags.set_default("optimizer", "adamw");
    flags.set_default("lr", "0.001");
    flags.set_default("weight-decay", "0.1");
  }
  void derive_defaults(train::Flags& flags) const override { derive_lm_defaults(flags); }
  Status validate(const train::Flags& flags) const override { return training_.validate(flags); }
  Status run(train::RunContext& context) override { return training_.run(context); }

 private:
  LmTask task_;  // before training_, which refers to it
  train::TrainingWorkload training_;
};

}  // namespace scalestudy::lm
