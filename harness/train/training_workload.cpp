#include "harness/train/training_workload.hpp"

#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>

#include "harness/dist/gradient_bucketer.hpp"
#include "harness/dist/parameter_shards.hpp"
#include "harness/dist/parameter_sync.hpp"
#include "harness/gpu/deterministic_kernels.hpp"
#include "harness/metrics/cpu_usage.hpp"
#include "harness/metrics/phase_timer.hpp"
#include "harness/metrics/throughput_meter.hpp"
#include "harness/profiling/profiler_window.hpp"
#include "harness/train/ceiling_calibration.hpp"
#include "harness/train/checkpoint_store.hpp"
#include "harness/train/epoch_batches.hpp"
#include "harness/train/epoch_report.hpp"
#include "harness/train/intra_op_threads.hpp"
#include "harness/train/mixed_precision.hpp"
#include "harness/train/scalar_readback.hpp"
#include "harness/train/stop_agreement.hpp"
#include "harness/train/training_checkpoint.hpp"
#include "harness/train/training_config.hpp"
#include "harness/train/training_optimizer.hpp"

namespace scalestudy::train {
namespace {

using metrics::Phase;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Sums of one pass over a shard, reduced to global values across ranks. They stay on the
// run's device, so adding a batch never waits for it; reduce_pass reads them once.
struct PassTotals {
  explicit PassTotals(const torch::Device& device)
      : loss_sum(torch::zeros({}, torch::dtype(torch::kFloat64).device(device))),
        correct(torch::zeros_like(loss_sum)) {}

  torch::Tensor loss_sum;
  torch::Tensor correct;
  int64_t samples = 0;
  bool has_accuracy = false;

  // In place: no tensor is allocated per batch.
  void add(const TaskOutput& output, int64_t samples_in_batch) {
    torch::NoGradGuard no_grad;
    loss_sum.add_(output.loss.detach(), static_cast<double>(samples_in_batch));
    if (output.correct.defined()) {
      correct.add_(output.correct.detach());
      has_accuracy = true;
    }
    samples += samples_in_batch;
  }
};

struct GlobalMetrics {
  double loss = 0;
  std::optional<double> accuracy;
};

Result<GlobalMetrics> reduce_pass(const PassTotals& totals, dist::Communicator& communicator) {
  std::vector<double> sums = {totals.loss_sum.item<double>(), totals.correct.item<double>(),
                              static_cast<double>(totals.samples)};
  if (Status reduced = communicator.allreduce_scalars(sums, dist::ScalarReduction::kSum);
      !reduced) {
    return reduced;
  }
  GlobalMetrics metrics;
  if (sums[2] > 0) metrics.loss = sums[0] / sums[2];
  if (totals.has_accuracy && sums[2] > 0) metrics.accuracy = sums[1] / sums[2];
  return metrics;
}

// Global samples per second: all ranks' samples over the slowest rank's `time_ms`.
Result<double> global_rate(int64_t local_samples, double time_ms,
                           dist::Communicator& communicator) {
  std::vector<double> samples = {static_cast<double>(local_samples)};
  std::vector<double> slowest_ms = {time_ms};
  if (Status reduced = communicator.allreduce_scalars(samples, dist::ScalarReduction::kSum);
      !reduced) {
    return reduced;
  }
  if (Status reduced = communicator.allreduce_scalars(slowest_ms, dist::ScalarReduction::kMax);
      !reduced) {
    return reduced;
  }
  return slowest_ms[0] > 0 ? samples[0] * 1000.0 / slowest_ms[0] : 0.0;
}

class TrainingRun {
 public:
  TrainingRun(TrainingTask& task, RunContext& context, TrainingConfig config)
      : task_(task),
        context_(context),
        config_(std::move(config)),
        device_(context.device.device()),
        instruments_(config_.instrument, context.device.make_phase_clock()),
        precision_(config_.precision, device_.type()),
        profiler_(config_.profile_steps, instruments_.nvtx()),
        meter_(config_.measure_warmup_steps),
        progress_(context.is_rank0(), config_.log_interval),
        step_losses_(device_),
        stop_agreement_(context.communicator, device_, config_.stop_check_every),
        checkpoints_(std::filesystem::path(context.writer.path()).parent_path().string()) {}

  Status run() {
    if (Status supported = gpu::check_precision_supported(config_.precision, device_.type());
        !supported) {
      return supported;
    }
    gpu::apply_math_modes(config_.precision, config_.cudnn_benchmark);
    if (config_.deterministic) gpu::enable_deterministic_kernels();
    torch::manual_seed(config_.seed);
    TaskSetup setup{context_.flags, context_.rank_info, config_.seed,
                    device_,        config_.precision,  memory_format()};
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
    if (Status recorded = context_.writer.add_provenance(
            {{"optimizer_impl", optimizer_impl_name(optimizer_impl)},
             {"data_on_device", resident_split_ ? "true" : "false"},
             {"buffer_sync", "before_validation"},
             {"optimizer_sharding", shards_ ? "zero1" : "none"},
             {"gradient_reduction", gradient_reduction_},
             {"deterministic", config_.deterministic ? "true" : "false"}});
        !recorded) {
      return recorded;
    }

    if (config_.checkpoint_on_signal) context_.termination.stop_at_step_boundary();
    if (Status resumed = resume_from_checkpoint(); !resumed) return resumed;

    std::optional<GlobalMetrics> last_validation;
    cpu_at_start_ = metrics::read_cpu_usage();
    const int64_t first_epoch = resumed_ ? resumed_->epoch : 1;
    for (int64_t epoch = first_epoch; epoch <= config_.epochs; ++epoch) {
      auto validation = run_epoch(epoch);
      if (!validation) return validation.status();
      if (context_.checkpointed) return record_attempt();
      last_validation = *validation;
    }
    return finish(last_validation);
  }

 private:
  // Warm-up steps of a CUDA graph: eager steps that allocate gradients, optimizer state and
  // cuDNN plans before the capture.
  static constexpr int kGraphWarmupSteps = 3;

  at::MemoryFormat memory_format() const {
    return config_.channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  }
  BatchPlacement placement() const { return BatchPlacement{device_, memory_format()}; }
  // Samples per step over all ranks: --batch-size is per rank; the loaders' BatchGeometry
  // splits this evenly again, so every rank's batch is exactly config_.batch_size.
  int64_t global_batch() const { return config_.batch_size * context_.rank_info.world_size; }
  bool is_last_rank() const { return context_.rank_info.rank == context_.rank_info.world_size - 1; }

  // --data-on-device: keeps the task's training split in device memory when it offers one.
  Status place_training_split() {
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

  Result<std::unique_ptr<EpochBatches>> training_batches(int64_t epoch, int64_t first_batch) {
    if (resident_split_) return device_batches(*resident_split_, epoch - 1, first_batch);
    auto loader = task_.train_batches(epoch - 1, global_batch(), first_batch);
    if (!loader) return loader.status();
    return host_batches(std::move(*loader), placement());
  }

  void record_model_summary(const std::vector<torch::Tensor>& parameters) {
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
  Status settle_intra_op_threads() {
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
  Status calibrate() {
    if (!config_.calibrate) return Status::ok();
    auto ceilings = measure_ceilings(device_, config_.precision, context_.communicator,
                                     bucketer_->gradient_bytes());
    if (!ceilings) return ceilings.status();
    context_.summary.merge(ceilings->summary());
    return Status::ok();
  }

  // A measured step's arrival at the gradient all-reduce, and how long its all-reduce took.
  void record_arrival() {
    if (meter_.is_warmup(global_step_)) return;
    const dist::StepArrival& arrival = bucketer_->last_arrival();
    arrivals_.push_back({global_step_, arrival.arrival_unix_s});
    allreduce_spans_ms_.push_back(arrival.span_ms);
  }

  // Trains one epoch (the rest of it, for the epoch a run resumes in) and validates;
  // returns the global validation metrics (nullopt when the task has no validation split,
  // or when the run stopped to resume later: context_.checkpointed is set then).
  Result<std::optional<GlobalMetrics>> run_epoch(int64_t epoch) {
    const int64_t steps_done = resumed_ ? resumed_->epoch_step : 0;
    auto loader = training_batches(epoch, steps_done);
    if (!loader) return loader.status();
    int64_t steps = (*loader)->num_batches();
    if (config_.steps_per_epoch_cap > 0) steps = std::min(steps, config_.steps_per_epoch_cap);
    if (steps == 0) return Status::error("epoch " + std::to_string(epoch) + " has no full batch");
    if (steps_per_epoch_ == 0) steps_per_epoch_ = steps;

    meter_.start_epoch();
    PassTotals train_totals(device_);
    double earlier_attempts_s = 0;  // of this epoch
    if (resumed_) {
      train_totals.loss_sum = resumed_->epoch_loss_sum;
      train_totals.correct = resumed_->epoch_correct;
      train_totals.samples = resumed_->epoch_samples;
      train_totals.has_accuracy = resumed_->epoch_has_accuracy;
      earlier_attempts_s = resumed_->epoch_elapsed_s;
      meter_.resume(std::move(resumed_->meter), global_step_);
      resumed_.reset();
    }
    double epoch_lr = optim::lr_at(config_.schedule, global_step_ - steps_done, steps_per_epoch_);
    task_.module().train();
    Clock::time_point epoch_start = Clock::now();
    for (int64_t step = steps_done + 1; step <= steps; ++step) {
      const StepBoundary boundary{epoch, step - 1, &train_totals,
                                  earlier_attempts_s + seconds_since(epoch_start)};
      if (Status checked = at_step_boundary(boundary); !checked) return checked;
      if (context_.checkpointed) return std::optional<GlobalMetrics>();
      if (!meter_.is_warmup(global_step_) && !meter_.window_open()) {
        if (Status opened = open_measured_window(); !opened) return opened;
      }
      std::optional<data::Batch> batch;
      TaskOutput output;
      if (Status stepped = train_step(**loader, batch, output); !stepped) return stepped;
      if (!batch) break;
      record::StepRow row;
      row.global_step = global_step_;
      row.epoch = static_cast<int>(epoch);
      row.warmup = meter_.is_warmup(global_step_);
      row.samples = batch->images.size(0);
      train_totals.add(output, row.samples);
      pending_rows_.push_back(PendingRow{row});
      // The step before's loss: this step's is still being computed on a device.
      const std::optional<double> previous_loss = step_losses_.push(output.loss);
      if (previous_loss) progress_.update(epoch, config_.epochs, step, steps, *previous_loss);
      if (Status written = complete_rows(instruments_.collect(), previous_loss); !written) {
        return written;
      }
      ++global_step_;
      config_.test_faults.pause_after_step();
    }
    if (Status written = flush_rows(); !written) return written;
    meter_.close_window(Clock::now());
    double epoch_s = earlier_attempts_s + seconds_since(epoch_start);
    progress_.clear();

    auto train_metrics = reduce_pass(train_totals, context_.communicator);
    if (!train_metrics) return train_metrics.status();
    auto validation = validate(epoch);
    if (!validation) return validation.status();
    elapsed_s_ += earlier_attempts_s + seconds_since(epoch_start);
    const auto& rate_totals =
        meter_.epoch_measured().steps > 0 ? meter_.epoch_measured() : meter_.epoch_all();
    auto rate = global_rate(rate_totals.samples, rate_totals.elapsed_ms(), context_.communicator);
    if (!rate) return rate.status();

    record::EpochRow row;
    row.epoch = static_cast<int>(epoch);
    row.lr = epoch_lr;
    row.train_loss = train_metrics->loss;
    row.train_acc = train_metrics->accuracy;
    if (*validation) {
      row.val_loss = (*validation)->loss;
      row.val_acc = (*validation)->accuracy;
    }
    row.samples_per_s = *rate;
    row.epoch_s = epoch_s;
    if (Status written = context_.writer.add_epoch(row); !written) return written;
    if (context_.is_rank0()) {
      std::printf("%s\n",
                  format_epoch_line(row, config_.epochs, task_.tokens_per_sample()).c_str());
      std::fflush(stdout);
    }
    if (*validation) note_target(epoch, **validation);
    return *validation;
  }

  // The first epoch whose global validation reaches the target: the seconds since training
  // started (every epoch's training and validation so far, over every attempt) and the
  // epoch, in the summary. Every rank sees the same global figures, so every rank records
  // the same epoch.
  void note_target(int64_t epoch, const GlobalMetrics& validation) {
    if (!config_.target || target_epoch_ > 0) return;
    if (!config_.target->reached(validation.loss, validation.accuracy)) return;
    record_target(epoch, elapsed_s_);
    if (context_.is_rank0()) {
      std::printf("Target %s reached in epoch %lld after %.1f s\n",
                  config_.target->describe().c_str(), static_cast<long long>(epoch), elapsed_s_);
      std::fflush(stdout);
    }
  }

  void record_target(int64_t epoch, double seconds) {
    target_epoch_ = epoch;
    target_s_ = seconds;
    context_.summary["time_to_target_s"] = seconds;
    context_.summary["time_to_target_epoch"] = static_cast<double>(epoch);
  }

  // Where the loop stands between two steps: `epoch_step` steps of `epoch` done.
  struct StepBoundary {
    int64_t epoch = 1;
    int64_t epoch_step = 0;
    const PassTotals* epoch_totals = nullptr;
    double epoch_elapsed_s = 0;
  };

  // Between two steps: a periodic checkpoint when one is due, and the stop a signal asked
  // for once every rank knows of it (then context_.checkpointed is set).
  Status at_step_boundary(const StepBoundary& boundary) {
    const TestFaults& faults = config_.test_faults;
    if (Status signalled =
            faults.signal_if_due(global_step_, attempt_, is_last_rank(), context_.termination);
        !signalled) {
      return signalled;
    }
    auto stop = stop_agreed();
    if (!stop) return stop.status();
    const bool resumed_here = global_step_ == resume_step_;
    const bool periodic = config_.checkpoint_every > 0 && global_step_ > 0 && !resumed_here &&
                          global_step_ % config_.checkpoint_every == 0;
    if (*stop || periodic) {
      if (Status written = write_checkpoint(boundary); !written) {
        return written.with_context("checkpoint at step " + std::to_string(global_step_));
      }
    }
    faults.kill_if_due(global_step_, attempt_);
    if (*stop) {
      if (Status settled = stop_agreement_.settle(); !settled) return settled;
      const std::string signal = context_.termination.requested_by();
      const std::string cause = !signal.empty() ? signal
                                : global_step_ == config_.checkpoint_stop_at_step
                                    ? "--checkpoint-stop-at-step"
                                    : "a signal to another rank";
      context_.checkpointed =
          "checkpointed at global step " + std::to_string(global_step_) + " after " + cause +
          "; the next attempt in this --out-dir resumes from " + checkpoints_.directory();
    }
    return Status::ok();
  }

  // Whether the run stops before this step. A signal reaches the ranks at different
  // moments, so they agree on it every --stop-check-every steps, all at the same step, one
  // interval after it was asked for (StopAgreement); a single rank asks itself every step.
  Result<bool> stop_agreed() {
    if (config_.checkpoint_stop_at_step > 0 && global_step_ == config_.checkpoint_stop_at_step &&
        global_step_ != resume_step_) {
      return true;
    }
    if (!config_.checkpoint_on_signal) return false;
    const bool requested = context_.termination.stop_requested();
    if (context_.rank_info.world_size == 1) return requested;
    return stop_agreement_.at_boundary(global_step_, requested);
  }

  // Every rank writes its shard; once all have, rank 0 commits the manifest. Two scalar
  // all-reduces keep the ranks together, so a rank that failed to write fails them all and
  // no manifest names an incomplete checkpoint.
  Status write_checkpoint(const StepBoundary& boundary) {
    Clock::time_point started = Clock::now();
    if (Status written = flush_rows(); !written) return written;
    meter_.close_window(started);  // the write is no training time; the next step reopens it
    if (Status flushed = context_.writer.flush(); !flushed) return flushed;
    Status saved = save_shard(boundary);
    if (Status agreed = all_ranks_succeeded(saved); !agreed) return agreed;
    Status committed = Status::ok();
    if (context_.is_rank0()) {
      CheckpointManifest manifest;
      manifest.global_step = global_step_;
      manifest.world_size = context_.rank_info.world_size;
      manifest.attempt = attempt_;
      manifest.config = resumable_config(context_.flags.resolved());
      committed = checkpoints_.commit(manifest);
    }
    if (Status agreed = all_ranks_succeeded(committed); !agreed) return agreed;
    checkpoint_write_s_ += seconds_since(started);
    ++checkpoints_written_;
    return Status::ok();
  }

  Status save_shard(const StepBoundary& boundary) {
    auto path = checkpoints_.prepare_shard(global_step_, context_.rank_info.rank);
    if (!path) return path.status();
    LoopProgress progress;
    progress.global_step = global_step_;
    progress.epoch = boundary.epoch;
    progress.epoch_step = boundary.epoch_step;
    progress.steps_per_epoch = steps_per_epoch_;
    progress.attempt = attempt_;
    progress.epoch_loss_sum = boundary.epoch_totals->loss_sum;
    progress.epoch_correct = boundary.epoch_totals->correct;
    progress.epoch_samples = boundary.epoch_totals->samples;
    progress.epoch_has_accuracy = boundary.epoch_totals->has_accuracy;
    progress.epoch_elapsed_s = boundary.epoch_elapsed_s;
    progress.meter = meter_.state();
    progress.run_elapsed_s = elapsed_s_;
    progress.target_epoch = target_epoch_;
    progress.target_s = target_s_;
    if (Status written = write_shard(*path, progress, shard_contents()); !written) return written;
    return checkpoints_.publish_shard(global_step_, context_.rank_info.rank);
  }

  ShardContents shard_contents() {
    return ShardContents{task_.module(), *optimizer_, precision_, task_, device_};
  }

  // `local` on this rank; an error on every rank when any rank's was one.
  Status all_ranks_succeeded(const Status& local) {
    std::vector<double> ok = {local ? 1.0 : 0.0};
    if (Status reduced = context_.communicator.allreduce_scalars(ok, dist::ScalarReduction::kMin);
        !reduced) {
      return reduced;
    }
    if (!local) return local;
    if (ok[0] < 1) return Status::error("another rank failed to write its part");
    return Status::ok();
  }

  // A committed checkpoint in the run directory: checked against this run's configuration
  // and world size, then every piece of state restored, so the run continues exactly as an
  // uninterrupted one would.
  Status resume_from_checkpoint() {
    auto manifest = checkpoints_.read_manifest();
    if (!manifest) return manifest.status();
    if (!*manifest) return Status::ok();
    if (Status compatible = check_resumable(**manifest, checkpoints_.directory(),
                                            resumable_config(context_.flags.resolved()),
                                            context_.rank_info.world_size);
        !compatible) {
      return compatible;
    }
    const int64_t step = (*manifest)->global_step;
    const std::string path = checkpoints_.shard_path(step, context_.rank_info.rank);
    auto read = read_shard(path, step, shard_contents());
    if (!read) return read.status();
    LoopProgress& progress = *read;
    global_step_ = resume_step_ = step;
    steps_per_epoch_ = progress.steps_per_epoch;
    attempt_ = (*manifest)->attempt + 1;
    if (Status discarded = context_.writer.discard_from(step, static_cast<int>(progress.epoch));
        !discarded) {
      return discarded;
    }
    if (context_.is_rank0()) {
      std::printf("Resumed at global step %lld (epoch %lld) from %s, attempt %d\n",
                  static_cast<long long>(step), static_cast<long long>(progress.epoch),
                  checkpoints_.directory().c_str(), attempt_);
      std::fflush(stdout);
    }
    // Time to target sums every attempt's epochs; a target reached before the stop stays.
    elapsed_s_ = progress.run_elapsed_s;
    if (progress.target_epoch > 0) record_target(progress.target_epoch, progress.target_s);
    resumed_ = std::move(progress);
    attempt_meter_start_ = resumed_->meter.run_measured;
    return Status::ok();
  }

  // This attempt's part of the run in the provenance table ("attempt.<k>.*"): the steps it
  // ran and what of them was measured (its warm-up excluded); the run's totals combine them.
  Status record_attempt() {
    const metrics::ThroughputTotals& total = meter_.run_measured();
    if (Status written = context_.writer.add_arrivals(arrivals_); !written) return written;
    arrivals_.clear();
    const std::string prefix = "attempt." + std::to_string(attempt_) + ".";
    auto text = [](double value) { return std::to_string(value); };
    return context_.writer.add_provenance(
        {{prefix + "first_step", std::to_string(resume_step_ < 0 ? 0 : resume_step_)},
         {prefix + "end_step", std::to_string(global_step_)},
         {prefix + "measured_steps", std::to_string(total.steps - attempt_meter_start_.steps)},
         {prefix + "measured_samples",
          std::to_string(total.samples - attempt_meter_start_.samples)},
         {prefix + "measured_ms", text(total.elapsed_ms() - attempt_meter_start_.elapsed_ms())},
         {prefix + "checkpoint_write_s", text(checkpoint_write_s_)}});
  }

  // The first measured step of an epoch: the device drained (the held step's row
  // written), the wall-clock window opens; the first time, warm-up's memory peaks go.
  Status open_measured_window() {
    if (Status written = flush_rows(); !written) return written;
    if (!memory_peaks_reset_) {
      context_.device.reset_memory_peaks();
      memory_peaks_reset_ = true;
    }
    meter_.open_window(Clock::now());
    return Status::ok();
  }

  // Step rows wait in pending_rows_ for their phase times, which a device clock delivers
  // one step late, and for their loss, read one step late on every device: `times` and
  // `loss` belong to the oldest row still without them. Complete rows are written in order.
  Status complete_rows(std::optional<metrics::PhaseTimes> times, std::optional<double> loss) {
    for (PendingRow& pending : pending_rows_) {
      if (times && !pending.timed) {
        pending.row.times = *times;
        pending.timed = true;
        times.reset();
      }
      if (loss && !pending.row.loss) {
        pending.row.loss = loss;
        loss.reset();
      }
    }
    while (!pending_rows_.empty() && pending_rows_.front().timed &&
           pending_rows_.front().row.loss) {
      const record::StepRow row = std::move(pending_rows_.front().row);
      pending_rows_.pop_front();
      meter_.record(row.global_step, row.samples, row.times[Phase::kStep]);
      if (Status written = context_.writer.add_step(row); !written) return written;
    }
    return Status::ok();
  }

  // Waits for the device and writes every pending row (at an epoch's end, before a
  // checkpoint, when a measured window opens).
  Status flush_rows() { return complete_rows(instruments_.flush(), step_losses_.drain()); }

  Status train_step(EpochBatches& loader, std::optional<data::Batch>& batch, TaskOutput& output) {
    profiler_.before_step(global_step_);
    metrics::PhaseTimer step_timer = instruments_.time(Phase::kStep, global_step_);
    {
      metrics::PhaseTimer timer = instruments_.time(Phase::kData, global_step_);
      batch = loader.next();
    }
    if (!batch) return Status::ok();
    const double lr = optim::lr_at(config_.schedule, global_step_, steps_per_epoch_);
    if (graph_) return replay_step(*batch, lr, output);
    optimizer_->set_lr(lr);
    {
      metrics::PhaseTimer timer = instruments_.time(Phase::kForward, global_step_);
      gpu::AutocastScope autocast = precision_.autocast();
      output = task_.forward(*batch);
    }
    config_.test_faults.delay_if_slow_rank(context_.rank_info.rank);
    {
      metrics::PhaseTimer timer = instruments_.time(Phase::kBackward, global_step_);
      zero_gradients();
      precision_.backward(output.loss);
    }
    if (bucketer_->reduces()) {
      metrics::PhaseTimer timer = instruments_.time(Phase::kCommExposed, global_step_);
      if (Status reduced = bucketer_->finish(); !reduced) {
        return reduced.with_context("step " + std::to_string(global_step_));
      }
      record_arrival();
    }
    metrics::PhaseTimer timer = instruments_.time(Phase::kOptimizer, global_step_);
    if (optimizer_->skips_on_device()) {
      precision_.step_on_device(parameters_, [this](const torch::Tensor& found_inf) {
        optimizer_->step_unless(found_inf);
      });
    } else {
      precision_.step(parameters_, [this] { optimizer_->step(); });
    }
    // ZeRO-1: each rank updated its slice; the all-gather is part of the optimizer phase.
    if (shards_) {
      if (Status gathered = shards_->gather(); !gathered) {
        return gathered.with_context("step " + std::to_string(global_step_));
      }
    }
    return Status::ok();
  }

  // --cuda-graph: forward, backward with the bucket all-reduces and the optimizer replay as
  // one captured graph on static tensors: the batch is copied into graph_batch_ and the
  // outputs stay where the capture put them. Only the data and step phases are timed (a
  // replay has no phase boundaries on the host).
  Status replay_step(const data::Batch& batch, double lr, TaskOutput& output) {
    if (!graph_batch_) {
      graph_batch_ =
          data::Batch{batch.images.clone(), batch.labels.clone(), batch.valid_count, batch.index};
    } else {
      graph_batch_->images.copy_(batch.images);
      graph_batch_->labels.copy_(batch.labels);
    }
    optimizer_->set_lr(lr);  // ForeachSgd keeps the rate in device memory the graph reads
    graph_->run();
    if (!graph_status_) return graph_status_.with_context("step " + std::to_string(global_step_));
    output = graph_output_;
    return Status::ok();
  }

  // With several ranks the gradients are views into the bucketer's buffers, which it zeroes;
  // with one, the optimizer frees them.
  void zero_gradients() {
    if (bucketer_->reduces()) {
      bucketer_->start_step();
    } else {
      optimizer_->zero_grad();
    }
  }

  // The captured step; nothing in it may synchronise with the host. Its outputs are kept
  // detached: the loss would otherwise keep the step's autograd graph, gradient
  // accumulators included, alive into the next warm-up step or the capture.
  void graph_body() {
    zero_gradients();
    TaskOutput output;
    {
      gpu::AutocastScope autocast = precision_.autocast(/*cache_casts=*/false);
      output = task_.forward(*graph_batch_);
    }
    precision_.backward(output.loss);
    graph_status_ = bucketer_->finish();
    optimizer_->step();
    graph_output_.loss = output.loss.detach();
    graph_output_.correct = output.correct.defined() ? output.correct.detach() : torch::Tensor();
  }

  Result<std::optional<GlobalMetrics>> validate(int64_t epoch) {
    auto loader = task_.eval_batches(config_.eval_batch_size);
    if (!loader) return loader.status();
    if (!*loader) return std::optional<GlobalMetrics>();
    metrics::NvtxRange eval_range(instruments_.nvtx(), "eval", epoch);
    if (Status synced = dist::broadcast_buffers(task_.module(), context_.communicator); !synced) {
      return synced;
    }
    std::unique_ptr<EpochBatches> batches = host_batches(std::move(*loader), placement());
    torch::NoGradGuard no_grad;
    gpu::AutocastScope autocast = precision_.autocast();
    task_.module().eval();
    PassTotals totals(device_);
    while (std::optional<data::Batch> batch = batches->next()) {
      if (batch->valid_count == 0) continue;
      if (batch->valid_count < batch->images.size(0)) {
        batch->images = batch->images.narrow(0, 0, batch->valid_count);
        batch->labels = batch->labels.narrow(0, 0, batch->valid_count);
      }
      totals.add(task_.forward(*batch), batch->valid_count);
    }
    task_.module().train();
    auto metrics = reduce_pass(totals, context_.communicator);
    if (!metrics) return metrics.status();
    return std::optional<GlobalMetrics>(*metrics);
  }

  Status finish(const std::optional<GlobalMetrics>& last_validation) {
    if (Status settled = stop_agreement_.settle(); !settled) return settled;
    if (Status recorded = record_attempt(); !recorded) return recorded;
    const metrics::ThroughputTotals& measured = meter_.run_measured();
    auto rate = global_rate(measured.samples, measured.elapsed_ms(), context_.communicator);
    if (!rate) return rate.status();
    auto step_rate = global_rate(measured.samples, measured.step_ms, context_.communicator);
    if (!step_rate) return step_rate.status();
    auto& summary = context_.summary;
    summary["samples_per_s"] = *rate;
    summary["samples_per_s_step_sum"] = *step_rate;
    // A task whose samples are token sequences: the same rate in tokens, globally and per rank.
    if (const double tokens = static_cast<double>(task_.tokens_per_sample()); tokens > 0) {
      summary["tokens_per_sample"] = tokens;
      summary["tokens_per_s"] = *rate * tokens;
      summary["tokens_per_s_per_rank"] = *rate * tokens / context_.rank_info.world_size;
    }
    summary["step_ms_median"] = meter_.median_step_ms();
    summary["attempts"] = attempt_;
    summary["optimizer_state_bytes"] = static_cast<double>(optimizer_->state_bytes());
    if (checkpoints_written_ > 0) summary["checkpoints_written"] = checkpoints_written_;
    // This attempt's training: what the host's cores did beside it (the report's stragglers).
    if (auto cpu_now = metrics::read_cpu_usage(); cpu_now && cpu_at_start_) {
      summary.merge(metrics::cpu_usage_summary(*cpu_at_start_, *cpu_now));
    }
    summary.merge(precision_.summary());
    // Where the communicator's wait blocks the host (gloo) the span is the whole all-reduce.
    // A reduce-scatter's span is no all-reduce's: the report's bus bandwidth would be wrong.
    if (!allreduce_spans_ms_.empty() && context_.communicator.backend() == "gloo" &&
        gradient_reduction_ == "allreduce") {
      summary["allreduce_span_ms_median"] = metrics::median_of(allreduce_spans_ms_);
    }
    if (last_validation) {
      summary["final_val_loss"] = last_validation->loss;
      if (last_validation->accuracy) summary["final_val_acc"] = *last_validation->accuracy;
    }
    if (!config_.dump_params_path.empty() && context_.is_rank0()) {
      torch::save(task_.module().parameters(), config_.dump_params_path);
    }
    // Every rank has read its shard by now (at its start); the run needs it no longer.
    if (context_.is_rank0()) return checkpoints_.remove();
    return Status::ok();
  }

  TrainingTask& task_;
  RunContext& context_;
  TrainingConfig config_;
  torch::Device device_;
  metrics::StepInstrumentation instruments_;
  MixedPrecision precision_;
  profiling::ProfilerWindow profiler_;
  metrics::ThroughputMeter meter_;
  ProgressIndicator progress_;
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<TrainingOptimizer> optimizer_;
  std::unique_ptr<dist::GradientBucketer> bucketer_;
  // --optimizer-sharding zero1 where the bucketer reduces (several ranks, or a process group).
  std::unique_ptr<dist::ParameterShards> shards_;
  // The collective that averages gradients: allreduce | reduce_scatter | none (self).
  std::string gradient_reduction_;
  std::optional<gpu::DeviceBatchLoader> resident_split_;  // --data-on-device
  std::unique_ptr<gpu::StepGraph> graph_;                 // --cuda-graph
  std::optional<data::Batch> graph_batch_;                // the graph's static inputs
  TaskOutput graph_output_;                               // the graph's static outputs
  Status graph_status_;                                   // of the captured all-reduces
  std::vector<record::ArrivalRow> arrivals_;              // measured steps' not yet written
  std::vector<double> allreduce_spans_ms_;  // measured steps' all-reduce, this attempt
  // A step's row until its phase times and loss are in (complete_rows).
  struct PendingRow {
    record::StepRow row;
    bool timed = false;
  };
  std::deque<PendingRow> pending_rows_;
  StepLossReadback step_losses_;
  StopAgreement stop_agreement_;
  bool memory_peaks_reset_ = false;
  int64_t global_step_ = 0;
  int64_t steps_per_epoch_ = 0;
  // Training and validation seconds of the finished epochs, over every attempt (restored
  // from the checkpoint): the clock of time-to-target.
  double elapsed_s_ = 0;
  int64_t target_epoch_ = 0;  // the epoch that reached the target; 0: not (yet)
  double target_s_ = 0;       // elapsed_s_ when it did
  std::optional<metrics::CpuReading> cpu_at_start_;  // this attempt's first epoch
  CheckpointStore checkpoints_;                      // in the run directory
  std::optional<LoopProgress> resumed_;              // until the resumed epoch has taken it over
  int64_t resume_step_ = -1;                         // the step this attempt started at; -1: step 0
  int attempt_ = 1;                                  // of the run, 1 without a checkpoint
  metrics::ThroughputTotals attempt_meter_start_;    // run totals at this attempt's start
  int checkpoints_written_ = 0;                      // by this attempt
  double checkpoint_write_s_ = 0;                    // by this attempt
};

}  // namespace

void TrainingWorkload::declare_flags(Flags& flags) const {
  declare_training_flags(flags);
  task_.declare_flags(flags);
}

Status TrainingWorkload::validate(const Flags& flags) const {
  auto config = resolve_training_config(flags);
  if (!config) return config.status();
  return task_.validate(flags);
}

Status TrainingWorkload::run(RunContext& context) {
  auto config = resolve_training_config(context.flags);
  if (!config) return config.status();
  TrainingRun run(task_, context, std::move(*config));
  return run.run();
}

}  // namespace scalestudy::train
