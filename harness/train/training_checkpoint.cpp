#include "harness/train/training_checkpoint.hpp"

#include <ATen/core/Generator.h>

#include <mutex>
#include <string>
#include <vector>

#include "harness/core/first_line.hpp"

namespace scalestudy::train {
namespace {

using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

int64_t read_int(InputArchive& archive, const std::string& key) {
  c10::IValue value;
  archive.read(key, value);
  return value.toInt();
}

double read_double(InputArchive& archive, const std::string& key) {
  c10::IValue value;
  archive.read(key, value);
  return value.toDouble();
}

// A key that checkpoints of older builds lack: `fallback` there.
c10::IValue read_or(InputArchive& archive, const std::string& key, c10::IValue fallback) {
  c10::IValue value;
  return archive.try_read(key, value) ? value : fallback;
}

void save_totals(OutputArchive& archive, const std::string& prefix,
                 const metrics::ThroughputTotals& totals) {
  archive.write(prefix + ".steps", c10::IValue(totals.steps));
  archive.write(prefix + ".samples", c10::IValue(totals.samples));
  archive.write(prefix + ".step_ms", c10::IValue(totals.step_ms));
  archive.write(prefix + ".wall_ms", c10::IValue(totals.wall_ms));
}

metrics::ThroughputTotals load_totals(InputArchive& archive, const std::string& prefix) {
  metrics::ThroughputTotals totals;
  totals.steps = read_int(archive, prefix + ".steps");
  totals.samples = read_int(archive, prefix + ".samples");
  totals.step_ms = read_double(archive, prefix + ".step_ms");
  totals.wall_ms = read_double(archive, prefix + ".wall_ms");
  return totals;
}

// The CPU's, and the run's GPU's on a CUDA run.
std::vector<torch::Device> generator_devices(const torch::Device& device) {
  std::vector<torch::Device> devices = {torch::Device(torch::kCPU)};
  if (device.is_cuda()) devices.push_back(device);
  return devices;
}

std::string generator_key(const torch::Device& device) {
  return device.is_cuda() ? "generator.cuda" : "generator.cpu";
}

at::Generator default_generator(const torch::Device& device) {
  return at::globalContext().defaultGenerator(device);
}

void save_progress(OutputArchive& archive, const LoopProgress& progress) {
  archive.write("global_step", c10::IValue(progress.global_step));
  archive.write("epoch", c10::IValue(progress.epoch));
  archive.write("epoch_step", c10::IValue(progress.epoch_step));
  archive.write("steps_per_epoch", c10::IValue(progress.steps_per_epoch));
  archive.write("attempt", c10::IValue(static_cast<int64_t>(progress.attempt)));
  archive.write("epoch_loss_sum", progress.epoch_loss_sum, /*is_buffer=*/true);
  archive.write("epoch_correct", progress.epoch_correct, /*is_buffer=*/true);
  archive.write("epoch_samples", c10::IValue(progress.epoch_samples));
  archive.write("epoch_has_accuracy", c10::IValue(progress.epoch_has_accuracy));
  archive.write("epoch_elapsed_s", c10::IValue(progress.epoch_elapsed_s));
  archive.write("run_elapsed_s", c10::IValue(progress.run_elapsed_s));
  archive.write("target_epoch", c10::IValue(progress.target_epoch));
  archive.write("target_s", c10::IValue(progress.target_s));
  save_totals(archive, "meter.run_measured", progress.meter.run_measured);
  save_totals(archive, "meter.epoch_measured", progress.meter.epoch_measured);
  save_totals(archive, "meter.epoch_all", progress.meter.epoch_all);
  const auto& step_ms = progress.meter.measured_step_ms;
  archive.write("meter.measured_step_ms",
                torch::tensor(std::vector<double>(step_ms.begin(), step_ms.end()), torch::kFloat64),
                /*is_buffer=*/true);
}

LoopProgress load_progress(InputArchive& archive) {
  LoopProgress progress;
  progress.global_step = read_int(archive, "global_step");
  progress.epoch = read_int(archive, "epoch");
  progress.epoch_step = read_int(archive, "epoch_step");
  progress.steps_per_epoch = read_int(archive, "steps_per_epoch");
  progress.attempt = static_cast<int>(read_int(archive, "attempt"));
  archive.read("epoch_loss_sum", progress.epoch_loss_sum, /*is_buffer=*/true);
  archive.read("epoch_correct", progress.epoch_correct, /*is_buffer=*/true);
  progress.epoch_samples = read_int(archive, "epoch_samples");
  c10::IValue has_accuracy;
  archive.read("epoch_has_accuracy", has_accuracy);
  progress.epoch_has_accuracy = has_accuracy.toBool();
  progress.epoch_elapsed_s = read_double(archive, "epoch_elapsed_s");
  progress.run_elapsed_s = read_or(archive, "run_elapsed_s", 0.0).toDouble();
  progress.target_epoch = read_or(archive, "target_epoch", int64_t{0}).toInt();
  progress.target_s = read_or(archive, "target_s", 0.0).toDouble();
  progress.meter.run_measured = load_totals(archive, "meter.run_measured");
  progress.meter.epoch_measured = load_totals(archive, "meter.epoch_measured");
  progress.meter.epoch_all = load_totals(archive, "meter.epoch_all");
  torch::Tensor step_ms;
  archive.read("meter.measured_step_ms", step_ms, /*is_buffer=*/true);
  step_ms = step_ms.to(torch::kCPU, torch::kFloat64).contiguous();
  progress.meter.measured_step_ms.assign(step_ms.data_ptr<double>(),
                                         step_ms.data_ptr<double>() + step_ms.numel());
  return progress;
}

void save_module_tensors(OutputArchive& archive, const torch::nn::Module& module) {
  for (const auto& parameter : module.named_parameters()) {
    archive.write("param." + parameter.key(), parameter.value().detach(), /*is_buffer=*/true);
  }
  for (const auto& buffer : module.named_buffers()) {
    archive.write("buffer." + buffer.key(), buffer.value(), /*is_buffer=*/true);
  }
}

Status load_module_tensors(InputArchive& archive, torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  auto restore = [&](const std::string& key, torch::Tensor& target) {
    torch::Tensor saved;
    if (!archive.try_read(key, saved, /*is_buffer=*/true)) {
      return Status::error("no tensor " + key);
    }
    if (saved.sizes() != target.sizes()) {
      return Status::error(key + " has another shape than the model's");
    }
    target.copy_(saved);
    return Status::ok();
  };
  for (auto& parameter : module.named_parameters()) {
    if (Status restored = restore("param." + parameter.key(), parameter.value()); !restored) {
      return restored;
    }
  }
  for (auto& buffer : module.named_buffers()) {
    if (Status restored = restore("buffer." + buffer.key(), buffer.value()); !restored) {
      return restored;
    }
  }
  return Status::ok();
}

void save_generators(OutputArchive& archive, const torch::Device& device) {
  for (const torch::Device& owner : generator_devices(device)) {
    at::Generator generator = default_generator(owner);
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write(generator_key(owner), generator.get_state(), /*is_buffer=*/true);
  }
}

void load_generators(InputArchive& archive, const torch::Device& device) {
  for (const torch::Device& owner : generator_devices(device)) {
    torch::Tensor state;
    archive.read(generator_key(owner), state, /*is_buffer=*/true);
    at::Generator generator = default_generator(owner);
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state.cpu());
  }
}

}  // namespace

Status write_shard(const std::string& path, const LoopProgress& progress,
                   const ShardContents& contents) {
  try {
    OutputArchive archive, progress_part, model_part, optimizer_part, precision_part, task_part;
    save_progress(progress_part, progress);
    save_module_tensors(model_part, contents.module);
    contents.optimizer.save(optimizer_part);
    contents.precision.save(precision_part);
    contents.task.save_state(task_part);
    archive.write("progress", progress_part);
    archive.write("model", model_part);
    archive.write("optimizer", optimizer_part);
    archive.write("precision", precision_part);
    archive.write("task", task_part);
    save_generators(archive, contents.device);
    archive.save_to(path);
  } catch (const std::exception& error) {
    return Status::error("cannot write " + path + ": " + first_line(error.what()));
  }
  return Status::ok();
}

Result<LoopProgress> read_shard(const std::string& path, int64_t expected_step,
                                const ShardContents& contents) {
  try {
    InputArchive archive, progress_part, model_part, optimizer_part, precision_part, task_part;
    archive.load_from(path, contents.device);
    archive.read("progress", progress_part);
    LoopProgress progress = load_progress(progress_part);
    if (progress.global_step != expected_step) {
      return Status::error(path + " holds step " + std::to_string(progress.global_step) +
                           ", its manifest says " + std::to_string(expected_step));
    }
    archive.read("model", model_part);
    if (Status loaded = load_module_tensors(model_part, contents.module); !loaded) {
      return loaded.with_context(path);
    }
    archive.read("optimizer", optimizer_part);
    contents.optimizer.load(optimizer_part);
    archive.read("precision", precision_part);
    contents.precision.load(precision_part);
    archive.read("task", task_part);
    contents.task.load_state(task_part);
    load_generators(archive, contents.device);
    return progress;
  } catch (const std::exception& error) {
    return Status::error("cannot resume from " + path + ": " + first_line(error.what()));
  }
}

}  // namespace scalestudy::train
