#include "harness/train/training_config.hpp"

#include "harness/compat/torch_compat.hpp"

namespace scalestudy::train {
namespace {

// Reads one typed flag into `target`, keeping the first error.
template <typename T, typename Getter>
void read(Status& status, T& target, Getter&& getter) {
  if (!status) return;
  auto value = getter();
  if (!value) {
    status = value.status();
    return;
  }
  target = static_cast<T>(*value);
}

Status require(bool condition, const std::string& message) {
  return condition ? Status::ok() : Status::error(message);
}

}  // namespace

void declare_training_flags(Flags& flags) {
  flags.declare("epochs", "1", "training epochs").integer(1);
  flags.declare("steps-per-epoch", "0", "cap on steps per epoch; 0: the whole shard").integer(0);
  flags.declare("batch-size", "64", "samples per rank per step").integer(1);
  flags.declare("eval-batch-size", "256", "samples per rank per validation batch").integer(1);
  flags.declare("precision", "fp32", "fp32 | tf32 | fp16 | bf16 (tf32, fp16: CUDA only)")
      .one_of({"fp32", "tf32", "fp16", "bf16"});
  flags.declare("channels-last", "false", "NHWC memory format for weights and batches").boolean();
  flags.declare("cudnn-benchmark", "false", "let cuDNN pick the fastest convolution per shape")
      .boolean();
  flags
      .declare("deterministic", "false",
               "deterministic kernels only (torch.use_deterministic_algorithms, cuDNN "
               "deterministic, CUBLAS_WORKSPACE_CONFIG): runs bit-comparable, maybe slower")
      .boolean();
  flags
      .declare("data-on-device", "auto",
               "keep the training split in device memory: auto (a GPU and it fits) | true | false")
      .one_of({"auto", "true", "false"});
  flags.declare("cuda-graph", "false", "capture the training step as a CUDA graph (bf16/fp32)")
      .boolean();
  flags
      .declare("optimizer-impl", "auto",
               "foreach (fused / multi-tensor SGD or AdamW) | loop (torch::optim) | auto (foreach "
               "on CUDA)")
      .one_of({"auto", "foreach", "loop"});
  flags.declare("seed", "0", "seed of weights, shuffling and augmentation").integer(0);
  flags.declare("optimizer", "sgd", "sgd | adamw").one_of({"sgd", "adamw"});
  flags.declare("lr", "0.1", "base learning rate").number(0);
  flags.declare("momentum", "0.9", "SGD momentum").number(0);
  flags.declare("nesterov", "false", "SGD Nesterov momentum").boolean();
  flags.declare("weight-decay", "0", "weight decay (decoupled for adamw)").number(0);
  flags.declare("schedule", "constant", "constant | step | multistep | cosine")
      .one_of({"constant", "step", "multistep", "cosine"});
  flags.declare("warmup-epochs", "0", "linear LR warm-up in epochs (fractions allowed)").number(0);
  flags.declare("warmup-steps", "0", "linear LR warm-up in steps; overrides --warmup-epochs")
      .integer(0);
  flags.declare("step-size", "30", "epochs between decays of the step schedule").integer(1);
  flags.declare("gamma", "0.1", "decay factor of the step schedule").number(0);
  flags.declare("bucket-cap-mb", "25", "gradient bucket size for the all-reduce").number(0);
  flags.declare("overlap", "true", "all-reduce buckets during backward (false: one after)")
      .boolean();
  flags
      .declare("optimizer-sharding", "none",
               "none | zero1 (each rank keeps 1/N of the optimizer state, ZeRO stage 1)")
      .one_of({"none", "zero1"});
  flags.declare("instrument", "true", "per-phase timing and NVTX ranges").boolean();
  flags.declare("profile-steps", "",
                "FROM:TO: cudaProfilerStart before global step FROM, Stop before TO; empty: none");
  flags.declare("measure-warmup-steps", "5", "first steps excluded from throughput").integer(0);
  declare_target_flags(flags);
  flags.declare("log-interval", "10", "steps between progress updates on a terminal; 0: off")
      .integer(0);
  flags
      .declare(
          "checkpoint-every", "0",
          "steps between checkpoints in <out-dir>/checkpoint; 0: only when stopped by a signal")
      .integer(0);
  flags
      .declare("checkpoint-on-signal", "true",
               "SIGTERM/SIGINT: finish the step, checkpoint, exit 75; a rerun in the same "
               "--out-dir resumes (false: fail the run at once)")
      .boolean();
  flags
      .declare("stop-check-every", "10",
               "steps between the ranks' agreement on a stop request (one scalar all-reduce)")
      .integer(1);
  flags
      .declare("checkpoint-stop-at-step", "0",
               "stop at this global step as if SIGTERM had come (tests the resume path); 0: never",
               true)
      .integer(0);
  flags
      .declare("test-signal-at-step", "0",
               "the last rank sends itself SIGTERM before this global step of the first "
               "attempt (tests the signal path); 0: never",
               true)
      .integer(0);
  flags
      .declare("test-kill-at-step", "0",
               "every rank SIGKILLs itself before this global step of the first attempt, "
               "after its periodic checkpoint (tests --checkpoint-every); 0: never",
               true)
      .integer(0);
  flags.declare("test-step-delay-ms", "0", "pause after every step (tests time limits)", true)
      .integer(0);
  flags.declare("test-slow-rank", "-1", "this rank sleeps before every backward; -1: none", true)
      .integer(-1);
  flags.declare("test-slow-rank-ms", "0", "how long --test-slow-rank sleeps per step", true)
      .integer(0);
  flags
      .declare("calibrate", "true",
               "measure the GEMM and all-reduce ceilings at the start (summary ceiling_*)")
      .boolean();
  flags.declare("dump-params", "", "save the final parameters (torch::save) here", true);
  flags.declare("dump-initial-state", "",
                "save the module's initial parameters and buffers (torch::save) here", true);
}

Result<TrainingConfig> resolve_training_config(const Flags& flags) {
  TrainingConfig config;
  Status status = Status::ok();
  read(status, config.epochs, [&] { return flags.get_int("epochs"); });
  read(status, config.steps_per_epoch_cap, [&] { return flags.get_int("steps-per-epoch"); });
  read(status, config.batch_size, [&] { return flags.get_int("batch-size"); });
  read(status, config.eval_batch_size, [&] { return flags.get_int("eval-batch-size"); });
  read(status, config.seed, [&] { return flags.get_int("seed"); });
  read(status, config.precision, [&] { return gpu::parse_precision(flags.get("precision")); });
  read(status, config.channels_last, [&] { return flags.get_bool("channels-last"); });
  read(status, config.cudnn_benchmark, [&] { return flags.get_bool("cudnn-benchmark"); });
  read(status, config.deterministic, [&] { return flags.get_bool("deterministic"); });
  read(status, config.data_on_device,
       [&] { return parse_data_placement(flags.get("data-on-device")); });
  read(status, config.cuda_graph, [&] { return flags.get_bool("cuda-graph"); });
  read(status, config.optimizer_impl,
       [&] { return parse_optimizer_impl(flags.get("optimizer-impl")); });
  read(status, config.optimizer.kind,
       [&] { return optim::parse_optimizer_kind(flags.get("optimizer")); });
  read(status, config.optimizer.lr, [&] { return flags.get_double("lr"); });
  read(status, config.optimizer.momentum, [&] { return flags.get_double("momentum"); });
  read(status, config.optimizer.nesterov, [&] { return flags.get_bool("nesterov"); });
  read(status, config.optimizer.weight_decay, [&] { return flags.get_double("weight-decay"); });
  read(status, config.schedule.decay,
       [&] { return optim::parse_decay_kind(flags.get("schedule")); });
  read(status, config.schedule.warmup_epochs, [&] { return flags.get_double("warmup-epochs"); });
  read(status, config.schedule.warmup_steps, [&] { return flags.get_int("warmup-steps"); });
  read(status, config.schedule.step_size_epochs, [&] { return flags.get_int("step-size"); });
  read(status, config.schedule.gamma, [&] { return flags.get_double("gamma"); });
  read(status, config.bucket_cap_mb, [&] { return flags.get_double("bucket-cap-mb"); });
  read(status, config.overlap, [&] { return flags.get_bool("overlap"); });
  config.zero1 = flags.get("optimizer-sharding") == "zero1";
  read(status, config.instrument, [&] { return flags.get_bool("instrument"); });
  read(status, config.profile_steps,
       [&] { return profiling::parse_step_window(flags.get("profile-steps")); });
  read(status, config.measure_warmup_steps, [&] { return flags.get_int("measure-warmup-steps"); });
  read(status, config.log_interval, [&] { return flags.get_int("log-interval"); });
  read(status, config.target, [&] { return resolve_target(flags); });
  read(status, config.checkpoint_every, [&] { return flags.get_int("checkpoint-every"); });
  read(status, config.checkpoint_on_signal, [&] { return flags.get_bool("checkpoint-on-signal"); });
  read(status, config.stop_check_every, [&] { return flags.get_int("stop-check-every"); });
  read(status, config.checkpoint_stop_at_step,
       [&] { return flags.get_int("checkpoint-stop-at-step"); });
  read(status, config.test_faults.signal_at_step,
       [&] { return flags.get_int("test-signal-at-step"); });
  read(status, config.test_faults.kill_at_step, [&] { return flags.get_int("test-kill-at-step"); });
  read(status, config.test_faults.step_delay_ms,
       [&] { return flags.get_int("test-step-delay-ms"); });
  read(status, config.test_faults.slow_rank, [&] { return flags.get_int("test-slow-rank"); });
  read(status, config.test_faults.slow_rank_ms, [&] { return flags.get_int("test-slow-rank-ms"); });
  read(status, config.calibrate, [&] { return flags.get_bool("calibrate"); });
  if (!status) return status;
  config.dump_params_path = flags.get("dump-params");
  config.dump_initial_state_path = flags.get("dump-initial-state");
  config.schedule.base_lr = config.optimizer.lr;
  config.schedule.total_epochs = config.epochs;

  const bool sgd = config.optimizer.kind == optim::OptimizerKind::kSgd;
  for (Status check : {
           require(config.epochs >= 1, "--epochs must be >= 1"),
           require(config.steps_per_epoch_cap >= 0, "--steps-per-epoch must be >= 0"),
           require(config.batch_size >= 1, "--batch-size must be >= 1"),
           require(config.eval_batch_size >= 1, "--eval-batch-size must be >= 1"),
           require(config.bucket_cap_mb > 0, "--bucket-cap-mb must be > 0"),
           require(config.measure_warmup_steps >= 0, "--measure-warmup-steps must be >= 0"),
           require(config.log_interval >= 0, "--log-interval must be >= 0"),
           require(config.checkpoint_every >= 0, "--checkpoint-every must be >= 0"),
           require(config.stop_check_every >= 1, "--stop-check-every must be >= 1"),
           require(!(config.cuda_graph && gpu::needs_loss_scaling(config.precision)),
                   "--cuda-graph cannot capture fp16 loss scaling (it reads a flag on the host "
                   "every step); use bf16 or fp32"),
           require(!(config.cuda_graph && config.optimizer_impl == OptimizerImpl::kLoop),
                   "--cuda-graph needs --optimizer-impl foreach (torch::optim is not "
                   "capture-safe)"),
           require(!(config.cuda_graph && !sgd && !compat::kHasFusedOptimizers),
                   "--cuda-graph with --optimizer adamw needs LibTorch >= 2.4's fused AdamW "
                   "(this build's multi-tensor AdamW takes its bias corrections from step "
                   "counts on the host, which a graph would freeze); use --optimizer sgd"),
           require(!(config.deterministic && config.cudnn_benchmark),
                   "--deterministic excludes --cudnn-benchmark true: the autotuner picks "
                   "convolution algorithms by timing them"),
           require(!(config.zero1 && config.cuda_graph),
                   "--optimizer-sharding zero1 cannot be captured (--cuda-graph): its all-gather "
                   "waits on the host"),
           require(!(config.zero1 && gpu::needs_loss_scaling(config.precision)),
                   "--optimizer-sharding zero1 with fp16: the loss scaler reads every parameter's "
                   ".grad, which a reduce-scatter leaves unreduced; use bf16 or fp32"),
       }) {
    if (!check) return check;
  }
  if (Status valid = optim::validate_schedule(config.schedule); !valid) return valid;
  return config;
}

}  // namespace scalestudy::train
