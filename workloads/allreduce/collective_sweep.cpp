#include "workloads/allreduce/collective_sweep.hpp"

#include <chrono>
#include <iostream>

#include "harness/core/bus_bandwidth.hpp"
#include "workloads/allreduce/message_sizes.hpp"

namespace scalestudy::collectives {
namespace {

Result<int64_t> byte_size_flag(const train::Flags& flags, const std::string& name) {
  auto bytes = parse_byte_size(flags.get(name));
  if (!bytes) return bytes.status().with_context("--" + name);
  return bytes;
}

// Reading one element back waits for the runs queued on the buffer's device (on the CPU
// each run has finished when it returns).
void wait_for_device(const torch::Tensor& data) {
  static_cast<void>(data[0].item());
}

std::string sweep_title(const train::RunContext& context, const SweepSettings& settings,
                        const std::string& op_name) {
  const dist::Communicator& communicator = context.communicator;
  const int ranks = communicator.world_size();
  return "scalestudy-" + op_name + ": " + std::to_string(ranks) +
         (ranks == 1 ? " rank (" : " ranks (") + communicator.backend() + "), " +
         settings.element_type.name + ", " + settings.reduction + ", in place, " +
         std::to_string(settings.iterations) + " timed runs per size after " +
         std::to_string(settings.warmup_iterations) + " warm-up runs";
}

}  // namespace

Result<SweepSettings> read_sweep_settings(const train::Flags& flags) {
  SweepSettings settings;
  auto element_type = parse_element_type(flags.get("dtype"));
  if (!element_type) return element_type.status();
  settings.element_type = *element_type;
  settings.reduction = flags.get("op");
  if (settings.reduction != "sum") {
    return Status::error("--op: '" + settings.reduction +
                         "' is not supported (the Communicator reduces tensors by sum)");
  }
  auto min_bytes = byte_size_flag(flags, "min-bytes");
  if (!min_bytes) return min_bytes.status();
  auto max_bytes = byte_size_flag(flags, "max-bytes");
  if (!max_bytes) return max_bytes.status();
  auto step_factor = flags.get_int("step-factor");
  if (!step_factor) return step_factor.status();
  auto sizes = sweep_sizes({*min_bytes, *max_bytes, *step_factor}, settings.element_type.bytes());
  if (!sizes) return sizes.status();
  settings.sizes_bytes = std::move(*sizes);
  auto iterations = flags.get_int("iters");
  if (!iterations) return iterations.status();
  auto warmup = flags.get_int("warmup-iters");
  if (!warmup) return warmup.status();
  if (*iterations < 1 || *warmup < 0) {
    return Status::error("--iters must be at least 1 and --warmup-iters at least 0");
  }
  settings.iterations = *iterations;
  settings.warmup_iterations = *warmup;
  auto window = profiling::parse_step_window(flags.get("profile-steps"));
  if (!window) return window.status();
  settings.profile_steps = *window;
  return settings;
}

void CollectiveSweep::declare_flags(train::Flags& flags) const {
  flags.declare("min-bytes", "8", "smallest message in bytes (K, M, G: binary multiples)");
  flags.declare("max-bytes", "32M", "largest message in bytes (K, M, G: binary multiples)");
  flags.declare("step-factor", "2", "each message is this many times the previous one").integer(2);
  flags.declare("iters", "20", "timed runs per size").integer(1);
  flags.declare("warmup-iters", "5", "untimed runs per size before the timed ones").integer(0);
  flags
      .declare("dtype", "float32",
               "element type: float32, bfloat16 or float16, where the backend reduces it")
      .one_of({"float32", "bfloat16", "float16"});
  flags.declare("op", "sum", "reduction (sum)").one_of({"sum"});
  flags.declare("profile-steps", "",
                "FROM:TO: timed runs FROM to TO-1, numbered across the sweep, between "
                "cudaProfilerStart/Stop (nsys/ncu capture range); empty: none");
}

Status CollectiveSweep::validate(const train::Flags& flags) const {
  return read_sweep_settings(flags).status();
}

Status CollectiveSweep::run(train::RunContext& context) {
  auto settings = read_sweep_settings(context.flags);
  if (!settings) return settings.status();
  const ElementType& element_type = settings->element_type;
  torch::Tensor buffer = torch::empty(
      {settings->sizes_bytes.back() / element_type.bytes()},
      torch::TensorOptions().dtype(element_type.scalar_type).device(context.device.device()));
  // On NCCL the runs go straight to ncclAllReduce, as in nccl-tests, instead of through the
  // process group's per-call events and work objects.
  auto raw = context.device.raw_nccl_allreduce(context.communicator);
  if (!raw) return raw.status();
  dist::Communicator& communicator = *raw ? **raw : context.communicator;
  if (Status recorded = context.writer.add_provenance(
          {{"collective_calls", *raw ? "ncclAllReduce" : "process_group"}});
      !recorded) {
    return recorded;
  }
  if (context.is_rank0()) {
    std::cout << sweep_table_header(sweep_title(context, *settings, collective_.op_name()))
              << std::flush;
  }
  // After the buffer's allocation, so that a CUDA run's runtime is loaded for the window.
  metrics::NvtxDomain nvtx;
  profiling::ProfilerWindow window(settings->profile_steps, &nvtx);
  StepMarks marks{nvtx, window};
  std::vector<SizeResult> results;
  for (int64_t bytes : settings->sizes_bytes) {
    auto measured =
        measure(communicator, *settings, buffer.narrow(0, 0, bytes / element_type.bytes()), marks);
    if (!measured) {
      return measured.status().with_context(collective_.op_name() + " of " + std::to_string(bytes) +
                                            " bytes (" + element_type.name + ", " +
                                            context.communicator.backend() + ")");
    }
    if (context.is_rank0()) {
      std::cout << sweep_table_row(*measured, settings->reduction) << std::flush;
    }
    results.push_back(std::move(*measured));
  }
  context.summary["busbw_avg_gbps"] = average_busbw_gbps(results);
  if (context.is_rank0()) {
    std::cout << sweep_table_footer(results) << std::flush;
    std::vector<record::CollectiveRow> rows;
    for (const SizeResult& result : results) rows.push_back(result.row);
    if (Status written = context.writer.add_collectives(rows); !written) return written;
  }
  if (const int64_t wrong = total_wrong(results); wrong > 0) {
    return Status::error(std::to_string(wrong) + " wrong values in the " + collective_.op_name() +
                         " results (see #wrong per size)");
  }
  return Status::ok();
}

Result<SizeResult> CollectiveSweep::measure(dist::Communicator& communicator,
                                            const SweepSettings& settings, torch::Tensor data,
                                            StepMarks& marks) const {
  const int ranks = communicator.world_size();
  collective_.fill_input(data, communicator.rank());
  if (Status ran = collective_.run(communicator, data); !ran) return ran;
  std::vector<double> wrong = {static_cast<double>(
      collective_.count_wrong(data, ranks, settings.element_type.unit_roundoff))};
  // The untimed and timed runs reduce zeros: repeated in-place sums of the inputs would
  // overflow float16, and a sum takes as long whatever the values.
  data.zero_();
  for (int64_t run = 0; run < settings.warmup_iterations; ++run) {
    if (Status ran = collective_.run(communicator, data); !ran) return ran;
  }
  if (Status synced = communicator.barrier(); !synced) return synced;
  const int64_t bytes = data.numel() * settings.element_type.bytes();
  const std::string op_name = collective_.op_name();
  const auto started = std::chrono::steady_clock::now();
  for (int64_t run = 0; run < settings.iterations; ++run) {
    const int64_t step = marks.next_step++;
    marks.window.before_step(step);
    metrics::NvtxRange step_range(&marks.nvtx, "step", step);
    metrics::NvtxRange op_range(&marks.nvtx, op_name.c_str(), bytes);
    if (Status ran = collective_.run(communicator, data); !ran) return ran;
  }
  wait_for_device(data);
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - started;
  std::vector<double> time_us = {elapsed.count() / static_cast<double>(settings.iterations)};
  if (Status reduced = communicator.allreduce_scalars(time_us, dist::ScalarReduction::kMax);
      !reduced) {
    return reduced;
  }
  if (Status reduced = communicator.allreduce_scalars(wrong, dist::ScalarReduction::kSum);
      !reduced) {
    return reduced;
  }
  SizeResult result;
  result.elements = data.numel();
  result.wrong = static_cast<int64_t>(wrong[0]);
  result.row.op = collective_.op_name();
  result.row.bytes = bytes;
  result.row.dtype = settings.element_type.name;
  result.row.iterations = settings.iterations;
  result.row.time_us = time_us[0];
  result.row.algbw_gbps = bandwidth::algbw_gbps(result.row.bytes, time_us[0]);
  result.row.busbw_gbps = result.row.algbw_gbps * collective_.bus_factor(ranks);
  return result;
}

}  // namespace scalestudy::collectives
