// Scaling arithmetic, as pure functions of measured numbers (no database): strong- and
// weak-scaling speedup and efficiency, sensitivity deltas vs a baseline configuration,
// time to accuracy, and accelerator-hours. Thread-safe.
#pragma once

#include <optional>
#include <vector>

namespace scalestudy::results {

// Strong scaling (fixed global problem): speedup S = X(N) / X(base) from throughputs X
// in samples/s, and efficiency E = X(N)·N_base / (X(base)·N), which equals
// T(base)·N_base / (T(N)·N) for time per epoch T.
double strong_speedup(double throughput_base, double throughput_n);
double strong_efficiency(double throughput_base, int ranks_base, double throughput_n, int ranks_n);

// Weak scaling (fixed per-rank batch): E = T_step(base) / T_step(N).
double weak_efficiency(double step_ms_base, double step_ms_n);

// Sensitivity: relative throughput change in percent and accuracy change in points
// (accuracies as fractions 0..1).
double throughput_change_pct(double throughput_base, double throughput_config);
double accuracy_change_points(double accuracy_base, double accuracy_config);

// Seconds of training until the validation accuracy first reaches `target` (fraction),
// summing epoch wall times in order; nullopt when never reached.
std::optional<double> time_to_accuracy_s(const std::vector<double>& epoch_s,
                                         const std::vector<std::optional<double>>& val_acc,
                                         double target);

// Accelerator-hours per epoch: ranks × epoch seconds / 3600 (GPU-hours on GPU runs,
// rank-hours on CPU runs).
double device_hours_per_epoch(int ranks, double epoch_s);

}  // namespace scalestudy::results
