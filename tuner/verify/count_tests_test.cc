#include "tuner/verify/count_tests.h"

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

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

TEST_CASE("count tests: real counts continue the tails between the integers") {
  // The quasi-Poisson tests divide counts by a dispersion: 2.5 events lie between 2 and 3.
  CHECK(poisson_upper_tail(2.5, 1.0) < poisson_upper_tail(2, 1.0));
  CHECK(poisson_upper_tail(2.5, 1.0) > poisson_upper_tail(3, 1.0));
  CHECK(binomial_upper_tail(2.5, 10.5, 0.2) < binomial_upper_tail(2, 10, 0.2));
  CHECK(poisson_upper_bound(2.5, 0.001) > poisson_upper_bound(2, 0.001));
  CHECK(poisson_upper_bound(2.5, 0.001) < poisson_upper_bound(3, 0.001));
  CHECK(poisson_upper_tail(0.0, 1.0) == 1.0);
}

TEST_CASE("count tests: the dispersion of per-trial counts") {
  // Pearson's X^2 about each arm's rate over (trials - 1) per arm, floored at 1.
  std::vector<TrialCount> even = {{10, 100}, {10, 100}, {10, 100}};
  CHECK(dispersion(even, even) == 1.0);
  // One burst of 30 in three trials: expected 10 each, X^2 = 40 + 10 + 10 = 60 over 2.
  std::vector<TrialCount> burst = {{30, 100}, {0, 100}, {0, 100}};
  CHECK(dispersion(burst, {}) == doctest::Approx(30.0));
  CHECK(dispersion(burst, even) == doctest::Approx(60.0 / 4));
  // Exposures differ: the expectation follows them. 20 of 200 and 10 of 100: no spread.
  CHECK(dispersion({{20, 200}, {10, 100}}, {}) == 1.0);
  // Trials with no exposure carry nothing; one trial per arm has no degree of freedom.
  CHECK(dispersion({{5, 0}, {30, 100}}, {{0, 100}}) == 1.0);
  CHECK(dispersion({}, {}) == 1.0);
  // A dispersion of 1 is the exact test.
  Counts c{10, 20000, 100, 20000};
  Margin m{0.005, 2, 0.0005};
  CHECK(rate_margin_p(c, m, 0.001, 1.0) == rate_margin_p(c, m, 0.001));
  CHECK(rate_ratio_p(c, 1.0, 1.0) == rate_ratio_p(c));
  CHECK(rate_margin_p(c, m, 0.001, 20) > rate_margin_p(c, m, 0.001));
  CHECK(rate_ratio_p(c, 1.0, 20) > rate_ratio_p(c));
}

TEST_CASE("count tests: retransmits in bursts, the Poisson test trips and the quasi-Poisson not") {
  // Simulated: 10 trials per arm of 2000 segments, both arms retransmitting 0.3% in loss
  // episodes of 50 segments (the same rate: a harmless change). The exact Poisson test
  // takes each burst for 50 independent events and rejects far beyond its 1% level (24%
  // in tuner_guard_sim); the test on the counts divided by their dispersion stays
  // within it.
  std::mt19937_64 rng(12);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  const int reps = 2000;
  int poisson = 0, quasi = 0;
  Margin m{0.005, 2, 0.0005};  // the shipped +0.5 points
  for (int i = 0; i < reps; ++i) {
    std::vector<TrialCount> b, c;
    Counts n;
    for (int k = 0; k < 10; ++k)
      for (auto [arm, x, t] : {std::tuple{&b, &n.x_b, &n.t_b}, std::tuple{&c, &n.x_c, &n.t_c}}) {
        uint64_t r = 50 * std::poisson_distribution<uint64_t>(0.12)(rng);
        arm->push_back({r, 2000});
        *x += r;
        *t += 2000;
      }
    poisson += rate_margin_p(n, m, 0.001) <= 0.01;
    quasi += rate_margin_p(n, m, 0.001, dispersion(b, c)) <= 0.01;
  }
  CHECK(poisson >= reps * 0.10);
  CHECK(quasi <= reps * 0.01);
}

TEST_CASE("rate_rank_p: the exact Mann-Whitney law of the per-trial rates") {
  auto trials = [](const std::vector<uint64_t>& xs) {
    std::vector<TrialCount> out;
    out.reserve(xs.size());
    for (uint64_t x : xs) out.push_back({x, 1000});
    return out;
  };
  // 2 and 2, the candidate's both above: 1 of the C(4, 2) = 6 orders.
  CHECK(rate_rank_p(trials({1, 2}), trials({5, 6}), 0) == doctest::Approx(1.0 / 6));
  // 10 and 10 fully apart: 1 of C(20, 10) = 184756.
  CHECK(rate_rank_p(trials({0, 0, 1, 0, 2, 0, 0, 1, 0, 3}),
                    trials({50, 60, 55, 70, 40, 80, 65, 45, 75, 52}),
                    0) == doctest::Approx(1.0 / 184756));
  // The margin moves the candidate back: 5% higher is not proven above +10 points.
  CHECK(rate_rank_p(trials({0, 0, 1, 0, 2}), trials({50, 60, 55, 70, 40}), 0.1) == 1.0);
  // Ties count against the candidate; too few trials prove nothing.
  CHECK(rate_rank_p(trials({3, 3}), trials({3, 3}), 0) == 1.0);
  CHECK(rate_rank_p(trials({0}), trials({9, 9}), 0) == 1.0);
}

TEST_CASE("rate_rank_p: proves a rise the dispersed counts cannot, and keeps its level") {
  // Every candidate trial retransmits more, but one baseline burst makes the counts so
  // dispersed that the quasi-Poisson margin test cannot prove it.
  std::vector<TrialCount> b, c;
  for (int i = 0; i < 10; ++i) {
    b.push_back({static_cast<uint64_t>(i == 4 ? 900 : 1), 2000});
    c.push_back({static_cast<uint64_t>(60 + 40 * (i % 3)), 2000});
  }
  Counts n{0, 0, 0, 0};
  for (const TrialCount& t : b) n.x_b += t.x, n.t_b += t.t;
  for (const TrialCount& t : c) n.x_c += t.x, n.t_c += t.t;
  Margin m{0.003, 2.0, 0.0003};
  CHECK(rate_margin_p(n, m, 0.001, dispersion(b, c)) > 0.01);
  CHECK(rate_rank_p(b, c, 0.003) < 0.005);
  // Under H0 (both arms alike, bursty), the rank test keeps its level.
  std::mt19937_64 rng(7);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  int trips = 0;
  const int reps = 2000;
  for (int r = 0; r < reps; ++r) {
    std::vector<TrialCount> x, y;
    for (int i = 0; i < 10; ++i) {
      x.push_back({50 * std::poisson_distribution<uint64_t>(0.2)(rng), 2000});
      y.push_back({50 * std::poisson_distribution<uint64_t>(0.2)(rng), 2000});
    }
    trips += rate_rank_p(x, y, 0.003) <= 0.005;
  }
  CHECK(trips <= reps * 0.005);
}

TEST_CASE("rank_upper_p and rank_two_sided_p: the same law on plain values, either way") {
  std::vector<double> low = {-0.02, 0.01, 0.0, 0.03, 0.02}, high = {1.4, 1.5, 1.45, 1.6, 1.38};
  // 5 and 5 fully apart: 1 of C(10, 5) = 252 orders; two-sided, twice that.
  CHECK(rank_upper_p(low, high) == doctest::Approx(1.0 / 252));
  CHECK(rank_upper_p(high, low) == 1.0);
  CHECK(rank_two_sided_p(low, high) == doctest::Approx(2.0 / 252));
  CHECK(rank_two_sided_p(high, low) == doctest::Approx(2.0 / 252));
  // One value out of place: 2 of 252 on its side.
  std::vector<double> mixed = {-0.02, 0.01, 0.0, 0.03, 1.39};  // above 1.38 only
  CHECK(rank_two_sided_p(mixed, high) == doctest::Approx(4.0 / 252));
  CHECK(rank_two_sided_p(low, low) == 1.0);
  CHECK(rank_two_sided_p({1.0}, high) == 1.0);
}

TEST_CASE("rank_upper_p: past 60 x 60 the normal approximation, close to the exact law") {
  // At 60 and 60 (the exact law's last size) and at 61 and 60 (the approximation's
  // first), the same shift gives close p-values; 1000 trials per arm take no time.
  auto arms = [](std::size_t nb, std::size_t nc, double shift) {
    std::vector<double> b, c;
    for (std::size_t i = 0; i < nb; ++i)
      b.push_back(static_cast<double>((i * 37) % nb) / static_cast<double>(nb));
    for (std::size_t i = 0; i < nc; ++i)
      c.push_back(static_cast<double>((i * 41) % nc) / static_cast<double>(nc) + shift);
    return std::pair{b, c};
  };
  auto [b60, c60] = arms(60, 60, 0.12);
  auto [b61, c61] = arms(61, 60, 0.12);
  double exact = rank_upper_p(b60, c60), approx = rank_upper_p(b61, c61);
  CHECK(exact > 0.001);
  CHECK(exact < 0.05);
  CHECK(approx == doctest::Approx(exact).epsilon(0.25));
  auto [b1k, c1k] = arms(1000, 1000, 0.0);
  CHECK(rank_upper_p(b1k, c1k) > 0.3);
  auto [b1k2, c1k2] = arms(1000, 1000, 0.2);
  CHECK(rank_upper_p(b1k2, c1k2) < 1e-6);
}
