#include "orchestrator/results/analysis/efficiency.hpp"

namespace scalestudy::results {

double strong_speedup(double throughput_base, double throughput_n) {
  return throughput_base > 0 ? throughput_n / throughput_base : 0;
}

double strong_efficiency(double throughput_base, int ranks_base, double throughput_n, int ranks_n) {
  if (throughput_base <= 0 || ranks_n <= 0) return 0;
  return throughput_n * ranks_base / (throughput_base * ranks_n);
}

double weak_efficiency(double step_ms_base, double step_ms_n) {
  return step_ms_n > 0 ? step_ms_base / step_ms_n : 0;
}

double throughput_change_pct(double throughput_base, double throughput_config) {
  return throughput_base > 0 ? (throughput_config / throughput_base - 1) * 100 : 0;
}

double accuracy_change_points(double accuracy_base, double accuracy_config) {
  return (accuracy_config - accuracy_base) * 100;
}

std::optional<double> time_to_accuracy_s(const std::vector<double>& epoch_s,
                                         const std::vector<std::optional<double>>& val_acc,
                                         double target) {
  double elapsed_s = 0;
  for (size_t epoch = 0; epoch < epoch_s.size() && epoch < val_acc.size(); ++epoch) {
    elapsed_s += epoch_s[epoch];
    if (val_acc[epoch] && *val_acc[epoch] >= target) return elapsed_s;
  }
  return std::nullopt;
}

double device_hours_per_epoch(int ranks, double epoch_s) {
  return ranks * epoch_s / 3600.0;
}

}  // namespace scalestudy::results
