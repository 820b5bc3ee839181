#include "orchestrator/results/analysis/student_t.hpp"

#include <cmath>

namespace scalestudy::results {
namespace {

// The continued fraction of I_x(a, b) (modified Lentz), converging for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double x, double a, double b) {
  constexpr int kMaxIterations = 300;
  constexpr double kEpsilon = 1e-15, kTiny = 1e-300;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double fraction = d;
  for (int m = 1; m <= kMaxIterations; ++m) {
    const int m2 = 2 * m;
    double term = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + term * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + term / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    fraction *= d * c;
    term = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + term * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + term / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double step = d * c;
    fraction *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return fraction;
}

}  // namespace

double regularized_incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(x, a, b) / a;
  return 1 - front * beta_continued_fraction(1 - x, b, a) / b;
}

double student_t_upper_tail(double t, double degrees_of_freedom) {
  const double both_tails = regularized_incomplete_beta(
      degrees_of_freedom / (degrees_of_freedom + t * t), degrees_of_freedom / 2, 0.5);
  return t >= 0 ? both_tails / 2 : 1 - both_tails / 2;
}

}  // namespace scalestudy::results
