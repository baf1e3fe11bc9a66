// The sign-flip (permutation) test of a mean on paired contrasts: the test the verify
// decision runs on the arithmetic means beside its signed-rank test (decision.h,
// README.md "Stalls: the mean too").
//
// Under "each contrast is as likely negative as positive, whatever its size" (what the
// coin of a randomised unit gives when the candidate is the baseline moved by the null
// effect) the sum of the contrasts has the law of the sum with random signs. This
// computes that law exactly on the contrasts rounded to a grid of kSignFlipGrid steps
// of the largest: the rounding reads only the magnitudes, which a sign flip leaves as
// they were, so the test is exact for the rounded contrasts.
#pragma once

#include <span>

namespace tuner::verify {

/// Steps of the grid the largest |contrast| is rounded to.
inline constexpr unsigned kSignFlipGrid = 64;

/// P(sum of e_i |d_i| >= sum of d_i) for fair independent signs e_i, on the grid: the
/// one-sided p-value of "mean <= 0" against "mean > 0". 1 when `d` is empty or all 0.
double sign_flip_upper(std::span<const double> d);

}  // namespace tuner::verify
