// The Mann–Whitney U (Wilcoxon rank-sum) test: does one sample tend to give larger
// values than another? It compares ranks, not values, so one wild run moves U by at
// most n and never dominates it, and under "no difference" its distribution does not
// depend on the shape of the benchmark's noise (it needs only independent trials).
#pragma once

#include <span>

namespace tuner::verify {

/// Up to this many values per sample, tie-free samples get exact p-values from the
/// null distribution of U; above it (or with ties) the normal approximation is used.
inline constexpr unsigned kExactMaxPerSample = 50;

/// Mann–Whitney U of `y` against `x`, one-sided p-values both ways.
struct RankSum {
  /// #(y > x) + 1/2 #(y = x) over all m * n pairs: m n / 2 when neither tends higher.
  double u = 0;
  double mean = 0;       ///< E[U] = m n / 2 under H0
  double variance = 0;   ///< Var[U] under H0, corrected for ties (mid-ranks)
  bool exact = false;    ///< p-values come from the exact distribution
  double p_greater = 1;  ///< H1: y tends to be larger than x
  double p_less = 1;     ///< H1: y tends to be smaller than x
};

/// The two-sample test with mid-ranks for ties. Exact p-values when there are no ties
/// and both samples have at most kExactMaxPerSample values; otherwise the normal
/// approximation with continuity correction and tie-corrected variance (as scipy's
/// mannwhitneyu and R's wilcox.test do). An empty sample, or all values equal, gives
/// p = 1: no evidence. Values must be finite.
RankSum mann_whitney(std::span<const double> x, std::span<const double> y);

/// Var[U] under H0 for samples of m and n values whose ties contribute
/// `tie_term` = sum over tie groups of (t^3 - t).
double rank_sum_variance(unsigned m, unsigned n, double tie_term);

/// P(U >= u) under H0 from the exact distribution of U for tie-free samples of m and n
/// values (m, n <= kExactMaxPerSample); a fractional u is rounded up.
double rank_sum_exact_upper(unsigned m, unsigned n, double u);

/// P(U >= u) under H0 by the normal approximation with continuity correction.
/// 1 when the variance is zero.
double rank_sum_normal_upper(unsigned m, unsigned n, double u, double tie_term);

}  // namespace tuner::verify
