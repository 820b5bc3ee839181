// The upper tail of Student's t distribution, P(T > t) with real degrees of freedom (an
// effective sample size need not be whole), through the regularised incomplete beta
// function (continued fraction, Numerical Recipes §6.4). Pure functions; thread-safe.
#pragma once

namespace scalestudy::results {

// I_x(a, b) for 0 <= x <= 1, a, b > 0.
double regularized_incomplete_beta(double x, double a, double b);

// P(T > t) for T ~ Student's t with `degrees_of_freedom` > 0.
double student_t_upper_tail(double t, double degrees_of_freedom);

}  // namespace scalestudy::results
