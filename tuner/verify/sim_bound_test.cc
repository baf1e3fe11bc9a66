// The stall bound (sim_bound.h) against a count test run on drawn counts, and the
// `more-stalls` candidate's mean against its scenario's effect.
#include "tuner/verify/sim_bound.h"

#include <doctest/doctest.h>

#include <random>

#include "tuner/verify/sim.h"
#include "tuner/verify/sim_noise.h"

using namespace tuner::verify;

TEST_CASE("stall bound: binomial_cdf is exact on small cases") {
  CHECK(binomial_cdf(-1, 3, 0.5) == 0);
  CHECK(binomial_cdf(0, 3, 0.5) == doctest::Approx(0.125));
  CHECK(binomial_cdf(1, 3, 0.5) == doctest::Approx(0.5));
  CHECK(binomial_cdf(3, 3, 0.5) == doctest::Approx(1));
  CHECK(binomial_cdf(0, 40, 0.1) == doctest::Approx(0.014781).epsilon(1e-4));
}

TEST_CASE("stall bound: the most powerful count test, replayed on drawn counts") {
  // The bound's test at 40 trials, run on 200 000 drawn counts at each rate, keeps
  // what the closed form says (3 standard errors at most 0.2 points).
  const double p_keep = more_stalls_rate(0.05), p_back = more_stalls_rate(0.01);
  StallBound b = stall_bound(40, p_keep, p_back, 0.93, 0.01);
  std::mt19937_64 rng(7);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::binomial_distribution<int> keep_count(40, p_keep), back_count(40, p_back);
  // The boundary for 93% power under p_keep: keep below c, with chance g at c.
  int c = 0;
  while (binomial_cdf(c, 40, p_keep) < 0.93) ++c;
  double g = (0.93 - binomial_cdf(c - 1, 40, p_keep)) /
             (binomial_cdf(c, 40, p_keep) - binomial_cdf(c - 1, 40, p_keep));
  std::uniform_real_distribution<double> u(0, 1);
  auto kept = [&](int k) { return k < c || (k == c && u(rng) < g); };
  int n = 200000, power = 0, false_keeps = 0;
  for (int i = 0; i < n; ++i) {
    power += kept(keep_count(rng));
    false_keeps += kept(back_count(rng));
  }
  CHECK(power / double(n) == doctest::Approx(0.93).epsilon(0.005));
  CHECK(false_keeps / double(n) == doctest::Approx(b.least_false_keeps).epsilon(0.02));
  // What the README says: 40 trials cannot do both; a fifth of such candidates kept.
  CHECK(b.least_false_keeps > 0.2);
  CHECK(b.most_power < 0.5);
}

TEST_CASE("stall bound: more trials buy both, at a cost the loop does not pay") {
  const double p_keep = more_stalls_rate(0.05), p_back = more_stalls_rate(0.01);
  unsigned n = stall_trials_needed(p_keep, p_back, 0.93, 0.01);
  CHECK(n > 100);
  CHECK(n < 300);
  CHECK(stall_bound(n, p_keep, p_back, 0.93, 0.01).least_false_keeps <= 0.01);
  CHECK(stall_bound(n - 5, p_keep, p_back, 0.93, 0.01).least_false_keeps > 0.01);
}

TEST_CASE("more-stalls: both arms stall, the candidate more; its mean gains the effect") {
  CHECK(more_stalls_rate(0.05) == doctest::Approx(0.1));
  CHECK(more_stalls_rate(0.01) == doctest::Approx(0.2232).epsilon(0.001));
  for (double effect : {0.0, 0.01, 0.05}) {
    Scenario s{Noise::more_stalls, 0.03, effect, Direction::higher};
    sim::Draw draw(11);
    sim::Machine m = sim::start_machine(s, draw);
    double base = 0, cand = 0;
    const int n = 400000;
    for (int t = 0; t < n; ++t) {
      base += sim::trial_value(s, draw, m, t, 0, false);
      cand += sim::trial_value(s, draw, m, t, effect, true);
    }
    CHECK(cand / base - 1 == doctest::Approx(effect).epsilon(0.002).scale(1));
  }
}
