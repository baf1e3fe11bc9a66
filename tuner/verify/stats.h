// Descriptive statistics and the normal distribution, the primitives under the verify
// loop's decision (decision.h). Rank tests are in rank_sum.h, shift estimates in shift.h.
//
// Benchmark samples are small (5 to a few hundred values) and have outliers, so the
// decision uses medians and rank statistics, never means; the mean-like helpers here
// exist for reports and for the simulation's naive baseline.
#pragma once

#include <span>

namespace tuner::verify {

/// Median of `v` (the mean of the two middle values for an even count). NaN when empty.
double median(std::span<const double> v);

/// Quantile `q` in [0, 1] by linear interpolation between order statistics (Hyndman and
/// Fan type 7, the default of R and numpy). NaN when empty or q is outside [0, 1].
double quantile(std::span<const double> v, double q);

/// Mean after dropping floor(fraction * n) values from each end (scipy's trim_mean).
/// `fraction` in [0, 0.5); NaN when empty or out of range.
double trimmed_mean(std::span<const double> v, double fraction);

/// Arithmetic mean; NaN when empty.
double mean(std::span<const double> v);

/// P(Z <= z) for a standard normal Z.
double normal_cdf(double z);

/// P(Z > z), accurate far into the upper tail (where 1 - normal_cdf(z) rounds to 0).
double normal_upper(double z);

/// The z with P(Z <= z) = p, for p in (0, 1); -inf at 0, +inf at 1, NaN outside.
/// Acklam's rational approximation refined by one Halley step on erfc: relative error
/// near machine precision across (1e-300, 1 - 1e-16).
double normal_quantile(double p);

}  // namespace tuner::verify
