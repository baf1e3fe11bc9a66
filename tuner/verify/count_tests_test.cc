#include "tuner/verify/count_tests.h"

#include <cmath>
#include <random>

#include <doctest/doctest.h>

using namespace tuner::verify;

// Reference values: exact sums in Python (math.lgamma), or closed forms.
TEST_CASE("count tests: Poisson and binomial tails against exact sums") {
  CHECK(poisson_upper_tail(0, 3.0) == 1.0);
  CHECK(poisson_upper_tail(3, 1.0) == doctest::Approx(0.08030139707139416).epsilon(1e-12));
  CHECK(poisson_upper_tail(30, 10.0) == doctest::Approx(2.5099511713477796e-07).epsilon(1e-8));
  CHECK(poisson_upper_tail(1, 0.0) == 0.0);
  CHECK(binomial_upper_tail(7, 7, 0.5) == doctest::Approx(0.0078125).epsilon(1e-12));
  CHECK(binomial_upper_tail(2, 10, 0.1) == doctest::Approx(0.2639010709000001).epsilon(1e-12));
  CHECK(binomial_upper_tail(60, 400, 0.1) == doctest::Approx(0.0010528245171129303).epsilon(1e-9));
  // A million segments: the tail the retransmit guard computes on real traffic.
  CHECK(binomial_upper_tail(1100, 1'000'000, 0.001) ==
        doctest::Approx(0.0009574669696408225).epsilon(1e-8));
  CHECK(binomial_upper_tail(11, 10, 0.5) == 0.0);
}

TEST_CASE("count tests: the Garwood upper bound") {
  // x = 0: P(X = 0) = exp(-U) = gamma.
  CHECK(poisson_upper_bound(0, 0.001) == doctest::Approx(-std::log(0.001)).epsilon(1e-9));
  // The exact 95% interval of a count of 5 is [1.6235, 11.6683].
  CHECK(poisson_upper_bound(5, 0.025) == doctest::Approx(11.6683).epsilon(1e-5));
}

TEST_CASE("count tests: the conditional ratio test") {
  // No baseline events, 7 candidate events, equal exposure: 0.5^7.
  CHECK(rate_ratio_p({0, 10, 7, 10}) == doctest::Approx(0.0078125));
  CHECK(rate_ratio_p({0, 10, 6, 10}) > 0.01);
  // Twice the candidate exposure: twice the events are expected under H0.
  CHECK(rate_ratio_p({0, 10, 7, 20}) == doctest::Approx(std::pow(2.0 / 3, 7)));
  // A ratio margin: 7 vs 0 proves a rise, not a doubling.
  CHECK(rate_ratio_p({0, 10, 7, 10}, 2.0) == doctest::Approx(std::pow(2.0 / 3, 7)));
  CHECK(rate_ratio_p({0, 10, 0, 10}) == 1.0);
  CHECK(rate_ratio_p({5, 10, 5, 10}) > 0.5);
}

TEST_CASE("count tests: the margin test is gamma plus the tail at the bound") {
  Margin m{10};  // +10 events per unit of exposure
  CHECK(m.bound(2) == 12);
  Margin both{0.005, 2, 0.0005};  // min(+0.5 points, 2x + 0.05 points)
  CHECK(both.bound(0.001) == doctest::Approx(0.0025));
  CHECK(both.bound(0.01) == doctest::Approx(0.015));
  Counts c{0, 10, 200, 10};
  double u = poisson_upper_bound(0, 0.001) / 10;
  CHECK(rate_margin_p(c, m, 0.001) ==
        doctest::Approx(0.001 + poisson_upper_tail(200, 10 * (u + 10))));
  CHECK(rate_margin_p(c, m, 0.001) <= 0.01);               // 20 per trial against 0 + 10
  CHECK(rate_margin_p({20, 10, 40, 10}, m, 0.001) > 0.5);  // 2 -> 4 per trial: within +10
  CHECK(rate_margin_p({0, 10, 0, 10}, m, 0.001) == 1.0);
}

TEST_CASE("count tests: under the null boundary both tests reject at most at their level") {
  // A statistical claim, so simulated: equal rates for the ratio test, rate_c = rate_b +
  // margin for the margin test, counts large enough that the tests are not discrete.
  std::mt19937_64 rng(11);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  const int reps = 4000;
  int ratio_rejects = 0, margin_rejects = 0;
  for (int i = 0; i < reps; ++i) {
    uint64_t xb = std::poisson_distribution<uint64_t>(40)(rng);
    uint64_t xc = std::poisson_distribution<uint64_t>(40)(rng);
    ratio_rejects += rate_ratio_p({xb, 10, xc, 10}) <= 0.01;
    uint64_t yc = std::poisson_distribution<uint64_t>(40 + 50)(rng);  // 4 + 5 per unit
    margin_rejects += rate_margin_p({xb, 10, yc, 10}, Margin{5}, 0.001) <= 0.01;
  }
  CHECK(ratio_rejects <= reps * 0.015);
  CHECK(ratio_rejects >= 1);  // the test is not dead: it does reach its level
  CHECK(margin_rejects <= reps * 0.015);
}
