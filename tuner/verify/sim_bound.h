// What no decision rule can do (README.md, "Stalls: what no rule can do"): the most
// powerful test between a candidate whose trials stall at one rate and one that stalls
// more often, for an oracle that sees which trials stalled. Any rule that decides on at
// most n candidate trials (the sequential loop included) is a test on what the oracle
// sees, so it can do no better.
#pragma once

#include <vector>

namespace tuner::verify {

/// The Neyman-Pearson test on the count k of stalled trials among n: keep when k is
/// small (randomised at the boundary). The likelihood ratio falls with k when
/// p_keep < p_roll_back, so this test is the most powerful at every size.
struct StallBound {
  unsigned trials = 0;
  /// The least chance of keeping the p_roll_back candidate that any rule pays to keep
  /// the p_keep candidate with chance `power`.
  double least_false_keeps = 0;
  /// The most chance of keeping the p_keep candidate that any rule has while it keeps
  /// the p_roll_back candidate with chance at most `false_keeps`.
  double most_power = 0;
};

/// P(Bin(n, p) <= k); 0 for k < 0.
double binomial_cdf(int k, unsigned n, double p);

StallBound stall_bound(unsigned trials, double p_keep, double p_roll_back, double power,
                       double false_keeps);

/// The fewest trials (a multiple of 5, at most 1000) at which some rule keeps the p_keep
/// candidate with chance >= power and the p_roll_back one with chance <= false_keeps;
/// 0 if none up to 1000.
unsigned stall_trials_needed(double p_keep, double p_roll_back, double power, double false_keeps);

}  // namespace tuner::verify
