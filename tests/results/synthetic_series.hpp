// Synthetic measurement series for the change point detector: levels with relative noise
// and injected steps, generated from a seed (std::mt19937_64, Box-Muller normals), so the
// same series reach our detector and Apache Otava. Header-only test support.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace scalestudy::testing {

struct SyntheticSeries {
  std::vector<double> values;
  double noise = 0;              // relative standard deviation of each point
  std::vector<size_t> steps_at;  // first index of each new level
  std::vector<double> steps;     // relative change of each step (+0.05: 5 % up)
};

struct SyntheticSettings {
  int series = 200;
  int min_length = 12, max_length = 40;
  double min_noise = 0.01, max_noise = 0.10;
  double min_step = 0.03, max_step = 0.20;
  int min_segment = 6;  // points in every segment between steps
  uint64_t seed = 20261127;
};

// Series i has i % 3 steps (none, one, two), up or down, of a uniform size.
inline std::vector<SyntheticSeries> synthetic_series(const SyntheticSettings& settings = {}) {
  std::mt19937_64 generator(settings.seed);
  auto uniform = [&](double low, double high) {
    return low + (high - low) * (static_cast<double>(generator() >> 11) * 0x1.0p-53);
  };
  auto whole = [&](int low, int high) {  // [low, high]
    return low + static_cast<int>(generator() % static_cast<uint64_t>(high - low + 1));
  };
  auto normal = [&]() {
    const double u = std::max(uniform(0, 1), 1e-300), v = uniform(0, 1);
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  };
  std::vector<SyntheticSeries> all;
  for (int index = 0; index < settings.series; ++index) {
    SyntheticSeries series;
    const int steps = index % 3;
    const int length = std::max(whole(settings.min_length, settings.max_length),
                                (steps + 1) * settings.min_segment);
    series.noise = uniform(settings.min_noise, settings.max_noise);
    // Step positions with every segment at least min_segment long: the free points spread.
    const int free_points = length - (steps + 1) * settings.min_segment;
    std::vector<int> extra(static_cast<size_t>(steps + 1), 0);
    for (int point = 0; point < free_points; ++point) ++extra[static_cast<size_t>(whole(0, steps))];
    size_t at = 0;
    for (int step = 0; step < steps; ++step) {
      at += static_cast<size_t>(settings.min_segment + extra[static_cast<size_t>(step)]);
      series.steps_at.push_back(at);
      series.steps.push_back(uniform(settings.min_step, settings.max_step) *
                             (generator() % 2 == 0 ? 1 : -1));
    }
    double level = 1000;
    for (int point = 0; point < length; ++point) {
      for (size_t step = 0; step < series.steps_at.size(); ++step) {
        if (series.steps_at[step] == static_cast<size_t>(point)) level *= 1 + series.steps[step];
      }
      series.values.push_back(level * (1 + series.noise * normal()));
    }
    all.push_back(std::move(series));
  }
  return all;
}

}  // namespace scalestudy::testing
