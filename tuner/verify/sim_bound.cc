#include "tuner/verify/sim_bound.h"

#include <cmath>

namespace tuner::verify {
namespace {

double binomial_pmf(int k, unsigned n, double p) {
  if (k < 0 || static_cast<unsigned>(k) > n) return 0;
  if (p <= 0) return k == 0 ? 1 : 0;
  if (p >= 1) return static_cast<unsigned>(k) == n ? 1 : 0;
  double dn = n, dk = k;
  return std::exp(std::lgamma(dn + 1) - std::lgamma(dk + 1) - std::lgamma(dn - dk + 1) +
                  dk * std::log(p) + (dn - dk) * std::log1p(-p));
}

// The chance that the test "keep when k < c, and with chance g when k == c" keeps,
// under a slow rate of p.
double keeps(unsigned n, double p, int c, double g) {
  return binomial_cdf(c - 1, n, p) + g * binomial_pmf(c, n, p);
}

// The boundary (c, g) at which the test keeps with chance `rate` under p.
void boundary(unsigned n, double p, double rate, int& c, double& g) {
  int n_i = static_cast<int>(n);
  for (c = 0; c <= n_i; ++c)
    if (binomial_cdf(c, n, p) >= rate) break;
  if (c > n_i) {
    c = n_i;
    g = 1;
    return;
  }
  double pm = binomial_pmf(c, n, p);
  g = pm > 0 ? (rate - binomial_cdf(c - 1, n, p)) / pm : 0;
}

}  // namespace

double binomial_cdf(int k, unsigned n, double p) {
  double sum = 0;
  for (int i = 0; i <= k && static_cast<unsigned>(i) <= n; ++i) sum += binomial_pmf(i, n, p);
  return std::fmin(sum, 1.0);
}

StallBound stall_bound(unsigned trials, double p_keep, double p_roll_back, double power,
                       double false_keeps) {
  StallBound b;
  b.trials = trials;
  int c = 0;
  double g = 0;
  boundary(trials, p_keep, power, c, g);
  b.least_false_keeps = keeps(trials, p_roll_back, c, g);
  boundary(trials, p_roll_back, false_keeps, c, g);
  b.most_power = keeps(trials, p_keep, c, g);
  return b;
}

unsigned stall_trials_needed(double p_keep, double p_roll_back, double power, double false_keeps) {
  for (unsigned n = 5; n <= 1000; n += 5)
    if (stall_bound(n, p_keep, p_roll_back, power, false_keeps).least_false_keeps <= false_keeps)
      return n;
  return 0;
}

}  // namespace tuner::verify
