// Exact tests on counts: is a rate of events (retransmitted segments per segment sent,
// drops or carrier changes per trial) proven higher in the candidate arm than the
// baseline's by more than a margin? The guards (guard_decision.h) decide with these.
// Events are modelled as Poisson counts over an exposure (segments, trials, windows):
// exact for independent rare events, conservative for independent retransmits (a
// binomial count varies less than a Poisson count of the same mean). Retransmits come
// in bursts (one loss episode retransmits a window): with per-trial counts the tests
// take a dispersion phi (quasi-Poisson) and judge the counts divided by it.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace tuner::verify {

/// P(X >= k) for X ~ Poisson(mu). A real k continues it (the regularized incomplete
/// gamma P(k, mu)): the quasi-Poisson tests' scaled counts.
double poisson_upper_tail(double k, double mu);
/// P(X >= k) for X ~ Binomial(n, p); real k and n continue it (I_p(k, n - k + 1)).
double binomial_upper_tail(double k, double n, double p);
/// The exact (Garwood) upper confidence bound of a Poisson mean from one count x:
/// the mean at which P(X <= x) = gamma (continued in x as the tail above).
double poisson_upper_bound(double x, double gamma);

/// Two arms' counts: x events over an exposure t (segments, trials, windows).
struct Counts {
  uint64_t x_b = 0;
  double t_b = 0;
  uint64_t x_c = 0;
  double t_c = 0;
};

/// One trial's count: x events over an exposure t.
struct TrialCount {
  uint64_t x = 0;
  double t = 0;
};

/// The dispersion of two arms' per-trial counts: Pearson's X^2 about each arm's own
/// rate (sum of (x - r t)^2 / (r t)) over its degrees of freedom (trials with exposure,
/// less one per arm), floored at 1. 1 with no degrees of freedom: Poisson counts have 1.
double dispersion(const std::vector<TrialCount>& baseline,
                  const std::vector<TrialCount>& candidate);

/// Exact conditional test of H0: rate_c <= ratio * rate_b. Given the total, the
/// candidate's count is Binomial(total, ratio t_c / (ratio t_c + t_b)) at the boundary;
/// the p-value is its upper tail at x_c. 1 when there are no events. With phi > 1 the
/// counts are divided by phi first (quasi-Poisson); phi = 1 is the exact test.
double rate_ratio_p(const Counts& c, double ratio = 1.0, double phi = 1.0);

/// Exact Mann-Whitney test on per-trial rates (x / t of each trial with exposure) of
/// H0 "the candidate's rates less `add` are exchangeable with the baseline's" against
/// "the candidate's are higher": P(U >= u) for U = #{(i, j): c_i - add > b_j}, ties
/// counted against the candidate. It assumes nothing about how the counts of one trial
/// are spread (loss bursts, retransmitted windows): only that the trials of the two
/// arms are exchangeable under H0, which the randomised order gives. 1 when an arm has
/// fewer than 2 trials.
double rate_rank_p(const std::vector<TrialCount>& baseline,
                   const std::vector<TrialCount>& candidate, double add);

/// The exact Mann-Whitney law behind rate_rank_p, on plain values: P(U >= u) for U =
/// #{(i, j): candidate_i > baseline_j} (ties counted against the candidate) over the
/// C(m + n, m) equally likely arrangements of exchangeable arms. 1 when an arm has fewer
/// than 2 values.
double rank_upper_p(const std::vector<double>& baseline, const std::vector<double>& candidate);
/// Two-sided: twice the smaller of the two one-sided tails, at most 1 (the interference
/// test, interference.h: the other load moved either way between the arms).
double rank_two_sided_p(const std::vector<double>& a, const std::vector<double>& b);

/// The null boundary of a margin test: rate_c <= min(rate_b + add, ratio * rate_b + floor).
struct Margin {
  double add = 0;  // absolute increase allowed, per unit of exposure
  double ratio = std::numeric_limits<double>::infinity();
  double floor = 0;  // only with a finite ratio
  double bound(double rate_b) const;
};

/// Test of H0: rate_c <= m.bound(rate_b) with the baseline rate a nuisance (Berger and
/// Boos 1994): gamma + P(X_c >= x_c) at rate_c = m.bound(U), where U is the
/// 1 - gamma upper confidence bound of the baseline rate. Valid at any level >= gamma.
/// With phi > 1 the counts and exposures are divided by phi first (quasi-Poisson: the
/// same rates, the information of x / phi events); phi = 1 is the exact test.
double rate_margin_p(const Counts& c, const Margin& m, double gamma, double phi = 1.0);

}  // namespace tuner::verify
