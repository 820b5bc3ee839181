// Test helper: the small synthetic scalestudy-train run that the checkpoint-and-resume
// suites stop and resume, and its uninterrupted twin. Header-only; include
// tests/harness/torch_doctest.hpp first.
#pragma once

#include <string>
#include <vector>

#include "tests/harness/child_process.hpp"

namespace scalestudy::testing {

constexpr int kResumeWarmupSteps = 2;

struct ResumeShape {
  int steps_per_epoch = 12;
  std::string optimizer = "sgd";
  int epochs = 2;
};

// One rank of the run (16 samples per step), its final parameters dumped to
// <out_dir>/params.pt; `extra` flags are appended (later flags win).
inline std::vector<std::string> resume_train_command(const std::string& out_dir,
                                                     const ResumeShape& shape,
                                                     std::vector<std::string> extra = {}) {
  std::vector<std::string> command = {binary("scalestudy-train"),
                                      "--out-dir",
                                      out_dir,
                                      "--run-id",
                                      "resume",
                                      "--dataset",
                                      "synthetic",
                                      "--model",
                                      "small-cnn",
                                      "--epochs",
                                      std::to_string(shape.epochs),
                                      "--steps-per-epoch",
                                      std::to_string(shape.steps_per_epoch),
                                      "--batch-size",
                                      "16",
                                      "--optimizer",
                                      shape.optimizer,
                                      "--lr",
                                      "0.05",
                                      "--schedule",
                                      "cosine",
                                      "--seed",
                                      "5",
                                      "--threads",
                                      "1",
                                      "--val-samples",
                                      "64",
                                      "--measure-warmup-steps",
                                      std::to_string(kResumeWarmupSteps),
                                      "--log-interval",
                                      "0",
                                      "--dump-params",
                                      out_dir + "/params.pt"};
  command.insert(command.end(), extra.begin(), extra.end());
  return command;
}

// `command` as two ranks of 8 samples each under scalestudy-launch: the same global batch.
inline std::vector<std::string> on_two_ranks(std::vector<std::string> command) {
  command.insert(command.begin(), {binary("scalestudy-launch"), "--nproc-per-node", "2", "--"});
  command.insert(command.end(), {"--batch-size", "8"});
  return command;
}

}  // namespace scalestudy::testing
