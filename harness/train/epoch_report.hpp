// Rank 0's human output: one line per epoch in the seeds' format, and a progress
// indicator redrawn in place while attached to a terminal (never in logs).
// Used by the training thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/record/run_writer.hpp"

namespace scalestudy::train {

// "Epoch [3/3] LR 0.0500 | Loss (train, val) 0.412, 0.398 | Accuracy (train, val) 85.1%,
// 86.0% | Throughput 5321 img/s | 11.2 s"; "-" for metrics the task does not have. With
// `tokens_per_sample` > 0 (a language model) the throughput reads "163 seq/s, 20864 tokens/s".
std::string format_epoch_line(const record::EpochRow& epoch, int64_t total_epochs,
                              int64_t tokens_per_sample = 0);

class ProgressIndicator {
 public:
  // Active only when `enabled` and stdout is a terminal.
  ProgressIndicator(bool enabled, int64_t interval_steps);
  void update(int64_t epoch, int64_t total_epochs, int64_t step, int64_t steps, double loss);
  void clear();

 private:
  bool active_;
  int64_t interval_steps_;
  bool drawn_ = false;
};

}  // namespace scalestudy::train
