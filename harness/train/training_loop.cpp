// The training loop of TrainingLoop (training_loop.hpp): the epochs, each step from top to
// bottom (or its CUDA graph's replay) and validation, with the rooms around it called at
// their moments: checkpoints and the stop at step boundaries, the run database's rows and
// windows, time to target after validation.
#include "harness/train/training_loop.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "harness/dist/parameter_sync.hpp"
#include "harness/train/steady_seconds.hpp"

namespace scalestudy::train {
namespace {

using metrics::Phase;
using Clock = std::chrono::steady_clock;

}  // namespace

Status TrainingLoop::run() {
  if (Status prepared = prepare(); !prepared) return prepared;
  stop_.catch_signals();
  auto resumed = checkpoints_.resume(shard_contents());
  if (!resumed) return resumed.status();
  if (*resumed) {
    global_step_ = (*resumed)->global_step;
    steps_per_epoch_ = (*resumed)->steps_per_epoch;
  }

  std::optional<GlobalMetrics> last_validation;
  cpu_at_start_ = metrics::read_cpu_usage();
  for (int64_t epoch = checkpoints_.first_epoch(); epoch <= config_.epochs; ++epoch) {
    auto validation = run_epoch(epoch);
    if (!validation) return validation.status();
    if (context_.checkpointed) return record_attempt();
    last_validation = *validation;
  }
  return finish(last_validation);
}

Result<std::unique_ptr<EpochBatches>> TrainingLoop::training_batches(int64_t epoch,
                                                                     int64_t first_batch) {
  if (resident_split_) return device_batches(*resident_split_, epoch - 1, first_batch);
  auto loader = task_.train_batches(epoch - 1, global_batch(), first_batch);
  if (!loader) return loader.status();
  return host_batches(std::move(*loader), placement());
}

// Trains one epoch (the rest of it, for the epoch a run resumes in) and validates;
// returns the global validation metrics (nullopt when the task has no validation split,
// or when the run stopped to resume later: context_.checkpointed is set then).
Result<std::optional<GlobalMetrics>> TrainingLoop::run_epoch(int64_t epoch) {
  const int64_t steps_done = checkpoints_.resumed_epoch_steps();
  auto loader = training_batches(epoch, steps_done);
  if (!loader) return loader.status();
  int64_t steps = (*loader)->num_batches();
  if (config_.steps_per_epoch_cap > 0) steps = std::min(steps, config_.steps_per_epoch_cap);
  if (steps == 0) return Status::error("epoch " + std::to_string(epoch) + " has no full batch");
  if (steps_per_epoch_ == 0) steps_per_epoch_ = steps;

  meter_.start_epoch();
  PassTotals train_totals(device_);
  // Of this epoch: the seconds an epoch resumed in ran in earlier attempts.
  const double earlier_attempts_s = checkpoints_.continue_resumed_epoch(train_totals, global_step_);
  double epoch_lr = optim::lr_at(config_.schedule, global_step_ - steps_done, steps_per_epoch_);
  task_.module().train();
  Clock::time_point epoch_start = Clock::now();
  for (int64_t step = steps_done + 1; step <= steps; ++step) {
    const StepBoundary boundary{
        global_step_,
        steps_per_epoch_,
        epoch,
        /*epoch_step=*/step - 1,
        &train_totals,
        /*epoch_elapsed_s=*/earlier_attempts_s + seconds_since(epoch_start),
    };
    if (Status checked = checkpoints_.at_step_boundary(boundary, shard_contents()); !checked) {
      return checked;
    }
    if (context_.checkpointed) return std::optional<GlobalMetrics>();
    if (!meter_.is_warmup(global_step_) && !meter_.window_open()) {
      if (Status opened = recorder_.open_measured_window(); !opened) return opened;
      context_.energy.open(meter_.epoch_measured().samples);
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
    // The step before's loss: this step's is still being computed on a device.
    const std::optional<double> previous_loss = recorder_.hold_step_row(row, output.loss);
    if (previous_loss) progress_.update(epoch, config_.epochs, step, steps, *previous_loss);
    if (Status written = recorder_.write_complete_rows(previous_loss); !written) return written;
    ++global_step_;
    config_.test_faults.pause_after_step();
  }
  if (Status written = recorder_.flush_rows(); !written) return written;
  meter_.close_window(Clock::now());
  context_.energy.close(static_cast<int>(epoch), meter_.epoch_measured().samples);
  double epoch_s = earlier_attempts_s + seconds_since(epoch_start);
  progress_.clear();

  auto train_metrics = reduce_pass(train_totals, context_.communicator);
  if (!train_metrics) return train_metrics.status();
  auto validation = validate(epoch);
  if (!validation) return validation.status();
  time_to_target_.add_epoch_s(earlier_attempts_s + seconds_since(epoch_start));
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
    std::printf("%s\n", format_epoch_line(row, config_.epochs, task_.tokens_per_sample()).c_str());
    std::fflush(stdout);
  }
  if (*validation) {
    time_to_target_.note_validation(epoch, (*validation)->loss, (*validation)->accuracy);
  }
  return *validation;
}

Status TrainingLoop::train_step(EpochBatches& loader, std::optional<data::Batch>& batch,
                                TaskOutput& output) {
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
    recorder_.record_arrival(global_step_, bucketer_->last_arrival());
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
Status TrainingLoop::replay_step(const data::Batch& batch, double lr, TaskOutput& output) {
  if (!graph_batch_) {
    graph_batch_ =
        data::Batch{batch.images.clone(), batch.labels.clone(), batch.valid_count, batch.index};
  } else {
    // copy_ would broadcast a smaller batch into the captured shape without a word.
    if (!batch.images.sizes().equals(graph_batch_->images.sizes()) ||
        !batch.labels.sizes().equals(graph_batch_->labels.sizes())) {
      return Status::error("--cuda-graph: step " + std::to_string(global_step_) +
                           "'s batch has another shape than the captured step's");
    }
    graph_batch_->images.copy_(batch.images);
    graph_batch_->labels.copy_(batch.labels);
  }
  optimizer_->set_lr(lr);  // the optimizers keep the rate in device memory the graph reads
  graph_->run();
  if (!graph_status_) return graph_status_.with_context("step " + std::to_string(global_step_));
  output = graph_output_;
  return Status::ok();
}

// With several ranks the gradients are views into the bucketer's buffers, which it zeroes;
// with one, the optimizer frees them.
void TrainingLoop::zero_gradients() {
  if (bucketer_->reduces()) {
    bucketer_->start_step();
  } else {
    optimizer_->zero_grad();
  }
}

// The captured step; nothing in it may synchronise with the host. Its outputs are kept
// detached: the loss would otherwise keep the step's autograd graph, gradient
// accumulators included, alive into the next warm-up step or the capture.
void TrainingLoop::graph_body() {
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

Result<std::optional<GlobalMetrics>> TrainingLoop::validate(int64_t epoch) {
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

Status TrainingLoop::finish(const std::optional<GlobalMetrics>& last_validation) {
  if (Status settled = stop_.settle(); !settled) return settled;
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
  summary["attempts"] = checkpoints_.attempt().number;
  summary["optimizer_state_bytes"] = static_cast<double>(optimizer_->state_bytes());
  if (const int written = checkpoints_.attempt().checkpoints_written; written > 0) {
    summary["checkpoints_written"] = written;
  }
  // This attempt's training: what the host's cores did beside it (the report's stragglers).
  if (auto cpu_now = metrics::read_cpu_usage(); cpu_now && cpu_at_start_) {
    summary.merge(metrics::cpu_usage_summary(*cpu_at_start_, *cpu_now));
  }
  summary.merge(precision_.summary());
  // Where the communicator's wait blocks the host (gloo) the span is the whole all-reduce.
  // A reduce-scatter's span is no all-reduce's: the report's bus bandwidth would be wrong.
  const std::vector<double>& allreduce_spans_ms = recorder_.allreduce_spans_ms();
  if (!allreduce_spans_ms.empty() && context_.communicator.backend() == "gloo" &&
      gradient_reduction_ == "allreduce") {
    summary["allreduce_span_ms_median"] = metrics::median_of(allreduce_spans_ms);
  }
  if (last_validation) {
    summary["final_val_loss"] = last_validation->loss;
    if (last_validation->accuracy) summary["final_val_acc"] = *last_validation->accuracy;
  }
  if (!config_.dump_params_path.empty() && context_.is_rank0()) {
    torch::save(task_.module().parameters(), config_.dump_params_path);
  }
  return checkpoints_.remove_after_run();
}

}  // namespace scalestudy::train
