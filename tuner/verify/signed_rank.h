// The Wilcoxon signed-rank test on paired contrasts, and the one-sample shift estimate
// and bounds it gives (Hodges–Lehmann, Tukey's interval). The decision (decision.h)
// uses it on the contrasts of randomised units: each unit holds as many baseline as
// candidate trials in an order chosen by a coin flip, and its contrast is the
// candidate's mean log value minus the baseline's.
//
// Why this test: under "no effect beyond delta" the coin flip of each unit makes the
// sign of its contrast (less delta) a fair coin, whatever the machine did at that
// moment: a periodic disturbance, a drift, a cron job at the run's start. The
// signed-rank test assumes exactly that and nothing more, so it is valid where a
// two-sample rank test, which assumes every trial independent, is not (README.md).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace tuner::verify {

/// Up to this many units, p-values come from the exact null distribution of W+.
inline constexpr unsigned kSignedRankExactMax = 400;

/// P(W+ >= w) for n tie-free, non-zero contrasts under H0 (signs fair coins); W+ is the
/// sum of the ranks of |d| over the positive d, between 0 and n (n + 1) / 2. Exact up
/// to kSignedRankExactMax, normal approximation with continuity correction beyond.
double signed_rank_upper(unsigned n, double w);

/// The n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j, of contrasts d, sorted,
/// and the one-sided tests and bounds they give. #{Walsh averages > delta} is the
/// signed-rank statistic W+ of d - delta (Tukey), so the estimate (their median), the
/// bounds (their order statistics) and the tests are one and the same procedure.
///
/// A Walsh average exactly equal to delta counts against the alternative, so p-values
/// are conservative with ties and zeros (quantised metrics), monotone in delta, and
/// p_above(delta) <= alpha exactly when delta < lower_bound(alpha).
class SignedRankShift {
 public:
  /// Non-empty, finite contrasts `d`.
  explicit SignedRankShift(std::span<const double> d);
  unsigned units() const { return n_; }
  /// The Hodges–Lehmann one-sample estimate: the median of the Walsh averages.
  double estimate() const;
  /// One-sided p-value of H0 "centre <= delta" against "centre > delta".
  double p_above(double delta) const;
  /// One-sided p-value of H0 "centre >= delta" against "centre < delta".
  double p_below(double delta) const;
  /// Lower bound at level 1 - alpha: every delta below it is rejected by p_above at
  /// alpha, none at or above it; -inf when n is too small to reject anything.
  double lower_bound(double alpha) const;
  /// Upper bound at level 1 - alpha, the mirror image; +inf when too small.
  double upper_bound(double alpha) const;
  /// True when two contrasts have the same absolute value or one is zero.
  bool has_ties() const { return ties_; }

 private:
  // The smallest count c with P(W+ >= c) <= alpha; walsh_.size() + 1 when none.
  std::size_t critical_count(double alpha) const;

  unsigned n_ = 0;
  std::vector<double> walsh_;
  bool ties_ = false;
};

}  // namespace tuner::verify
