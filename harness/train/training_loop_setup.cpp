// Before a training run's first step: the task's model on the run's device with rank 0's
// weights everywhere, the gradient bucketer and ZeRO-1's parameter shards, the optimizer,
// the training split in device memory (--data-on-device), the CUDA graph's capture
// (--cuda-graph), the model's summary numbers, the ceilings (--calibrate), the intra-op
// threads (--threads 0) and the run's provenance. Part of TrainingLoop (training_loop.hpp).
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/dist/parameter_sync.hpp"
#include "harness/gpu/deterministic_kernels.hpp"
#include "harness/train/ceiling_calibration.hpp"
#include "harness/train/intra_op_threads.hpp"
#include "harness/train/training_loop.hpp"

namespace scalestudy::train {

Status TrainingLoop::prepare() {
  if (Status supported = gpu::check_precision_supported(config_.precision, device_.type());
      !supported) {
    return supported;
  }
  gpu::apply_math_modes(config_.precision, config_.cudnn_benchmark);
  if (config_.deterministic) gpu::enable_deterministic_kernels();
  torch::manual_seed(config_.seed);
  TaskSetup setup{context_.flags,
                  context_.rank_info,
                  config_.seed,
                  device_,
                  config_.precision,
                  memory_format(),
                  data::prefetch_depth_for(device_)};
  if (Status ready = task_.setup(setup); !ready) return ready;
  torch::nn::Module& module = task_.module();
  module.to(device_);
  if (config_.channels_last) gpu::convert_to_channels_last(module);
  if (Status synced = dist::broadcast_module_state(module, context_.communicator); !synced) {
    return synced;
  }
  if (!config_.dump_initial_state_path.empty() && context_.is_rank0()) {
    torch::serialize::OutputArchive archive;
    module.save(archive);  // by dotted name, as PyTorch-Python's state_dict
    archive.save_to(config_.dump_initial_state_path);
  }
  parameters_ = module.parameters();
  dist::Communicator& communicator = context_.communicator;
  dist::BucketerOptions bucket_options;
  bucket_options.bucket_cap_mb = config_.bucket_cap_mb;
  bucket_options.overlap = config_.overlap;
  bucket_options.shard_gradients = config_.zero1;
  if (config_.zero1 && communicator.communicates()) {
    auto scatter = communicator.supports_reduce_scatter();  // every rank asks, here
    if (!scatter) return scatter.status();
    bucket_options.reduce_scatter = *scatter;
  }
  // A captured step's backward runs on the device's step stream, and the bucketer keeps
  // the gradient accumulators it hooks: they must be made on that stream (PyTorch builds
  // DDP on the capture stream).
  auto build_bucketer = [&] {
    bucketer_ = std::make_unique<dist::GradientBucketer>(parameters_, context_.communicator,
                                                         bucket_options, instruments_.nvtx());
  };
  if (config_.cuda_graph) {
    context_.device.on_step_stream(build_bucketer);
  } else {
    build_bucketer();
  }
  if (config_.zero1 && bucketer_->reduces()) {
    shards_ = std::make_unique<dist::ParameterShards>(parameters_, *bucketer_, communicator);
  }
  gradient_reduction_ = !bucketer_->reduces()           ? "none"
                        : bucket_options.reduce_scatter ? "reduce_scatter"
                                                        : "allreduce";
  const OptimizerImpl optimizer_impl =
      resolve_optimizer_impl(config_.optimizer_impl, config_.cuda_graph, device_);
  auto optimizer = make_training_optimizer(shards_ ? shards_->shards() : parameters_,
                                           config_.optimizer, optimizer_impl);
  if (!optimizer) return optimizer.status();
  optimizer_ = std::move(*optimizer);
  if (Status placed = place_training_split(); !placed) return placed;
  if (config_.cuda_graph) {
    auto graph = context_.device.capture_step([this] { graph_body(); }, kGraphWarmupSteps);
    if (!graph) return graph.status();
    graph_ = std::move(*graph);
  }
  record_model_summary(parameters_);
  if (Status calibrated = calibrate(); !calibrated) return calibrated;
  if (Status threaded = settle_intra_op_threads(); !threaded) return threaded;
  return context_.writer.add_provenance(
      {{"optimizer_impl", optimizer_impl_name(optimizer_impl)},
       {"data_on_device", resident_split_ ? "true" : "false"},
       {"loader_prefetch_depth", std::to_string(setup.prefetch_depth)},
       {"buffer_sync", "before_validation"},
       {"optimizer_sharding", shards_ ? "zero1" : "none"},
       {"gradient_reduction", gradient_reduction_},
       {"deterministic", config_.deterministic ? "true" : "false"}});
}

// --data-on-device: keeps the task's training split in device memory when it offers one.
Status TrainingLoop::place_training_split() {
  std::optional<ResidentData> resident = task_.resident_training_data();
  auto on_device = keep_split_on_device(config_.data_on_device, resident, device_,
                                        context_.device.memory_capacity_bytes());
  if (!on_device) return on_device.status();
  if (!*on_device) return Status::ok();
  gpu::DeviceLoaderOptions options;
  options.global_batch = global_batch();
  options.where = data::RankInWorld{context_.rank_info.rank, context_.rank_info.world_size};
  options.seed = config_.seed;
  options.augment = resident->augment;
  options.memory_format = memory_format();
  auto loader =
      gpu::DeviceBatchLoader::create(*resident->split, *resident->stats, device_, options);
  if (!loader) return loader.status();
  resident_split_ = std::move(*loader);
  return Status::ok();
}

void TrainingLoop::record_model_summary(const std::vector<torch::Tensor>& parameters) {
  int64_t count = 0;
  for (const torch::Tensor& parameter : parameters) {
    if (parameter.requires_grad()) count += parameter.numel();
  }
  auto& summary = context_.summary;
  summary["parameters"] = static_cast<double>(count);
  summary["gradient_bytes"] = static_cast<double>(bucketer_->gradient_bytes());
  summary["bucket_count"] = static_cast<double>(bucketer_->buckets().size());
  summary["bucket_cap_mb"] = config_.bucket_cap_mb;
  summary["per_rank_batch"] = static_cast<double>(config_.batch_size);
  summary["global_batch"] = static_cast<double>(global_batch());
  for (const auto& [name, value] : task_.summary()) summary[name] = value;
  if (config_.target) summary[config_.target->summary_key()] = config_.target->value;
}

// `--threads 0` on a CPU: narrow the driver's cores / ranks to what this model's step
// can use, once its forward cost is known (after calibration, which measures the cores
// the rank owns). The choice and its rule replace the driver's provenance entry.
Status TrainingLoop::settle_intra_op_threads() {
  auto requested = context_.flags.get_int("threads");
  if (!requested) return requested.status();
  if (*requested > 0 || !device_.is_cpu()) return Status::ok();
  auto flops = context_.summary.find("forward_flops");
  double per_step = flops == context_.summary.end() ? 0 : flops->second * config_.batch_size;
  IntraOpThreads choice = choose_intra_op_threads(torch::get_num_threads(), per_step);
  torch::set_num_threads(choice.threads);
  return context_.writer.add_provenance({{"intra_op_threads", std::to_string(choice.threads)},
                                         {"intra_op_threads_rule", choice.rule}});
}

// --calibrate: the ceilings the report sets this run against, measured on its own
// device and communicator before it trains.
Status TrainingLoop::calibrate() {
  if (!config_.calibrate) return Status::ok();
  auto ceilings = measure_ceilings(device_, config_.precision, context_.communicator,
                                   bucketer_->gradient_bytes());
  if (!ceilings) return ceilings.status();
  context_.summary.merge(ceilings->summary());
  return Status::ok();
}

}  // namespace scalestudy::train
