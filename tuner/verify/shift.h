// How far is one sample shifted from another? The Hodges–Lehmann estimate (the median
// of all pairwise differences) with its distribution-free confidence bounds (Moses),
// and the Mann–Whitney test of "the shift is at most / at least delta" that those
// bounds invert. The decision (decision.h) uses this on log-scaled trial values, where
// a shift is a ratio.
#pragma once

#include <span>
#include <vector>

namespace tuner::verify {

/// Median of all pairwise differences y_j - x_i: the Hodges–Lehmann shift estimate.
/// NaN when either sample is empty.
double hodges_lehmann(std::span<const double> x, std::span<const double> y);

/// The m * n sorted differences y_j - x_i of a baseline sample x and a candidate
/// sample y, and the one-sided shift tests and bounds they give.
///
/// Tests at a shift `delta` compare x with y - delta. Ties between the two (a
/// difference exactly equal to delta) are counted against the alternative, as if delta
/// were moved an infinitesimal step towards the null: p-values are then conservative,
/// they are monotone in delta, and p_above(delta) <= alpha holds exactly when
/// delta < lower_bound(alpha) (likewise for the upper side), so a reported bound never
/// disagrees with a test. Ties inside a sample use the tie-corrected variance.
class ShiftAnalysis {
 public:
  /// Both samples non-empty, values finite.
  ShiftAnalysis(std::span<const double> x, std::span<const double> y);

  /// The Hodges–Lehmann estimate.
  double estimate() const;

  /// One-sided p-value for H0 "shift <= delta" against H1 "shift > delta".
  double p_above(double delta) const;
  /// One-sided p-value for H0 "shift >= delta" against H1 "shift < delta".
  double p_below(double delta) const;

  /// Lower confidence bound at level 1 - alpha (0 < alpha < 1): every delta below it is
  /// rejected by p_above at level alpha, none at or above it. -inf when the samples are
  /// too small to reject anything at that level.
  double lower_bound(double alpha) const;
  /// Upper confidence bound at level 1 - alpha: the mirror image; +inf when too small.
  double upper_bound(double alpha) const;

  /// True when p-values come from the exact null distribution (no ties within either
  /// sample, at most kExactMaxPerSample values each).
  bool exact() const { return exact_; }
  /// True when a value repeats inside either sample (quantised metrics).
  bool has_ties() const { return tie_term_ > 0; }

 private:
  // P(U >= count) under H0.
  double p_count(std::size_t count) const;
  // The smallest count whose p_count is <= alpha; pairs() + 1 when none is.
  std::size_t critical_count(double alpha) const;
  std::size_t pairs() const { return diffs_.size(); }

  unsigned m_ = 0, n_ = 0;
  std::vector<double> diffs_;
  double tie_term_ = 0;
  bool exact_ = false;
};

}  // namespace tuner::verify
