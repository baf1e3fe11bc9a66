#include "tuner/verify/shift.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tuner/verify/rank_sum.h"

using namespace tuner::verify;

TEST_CASE("Hodges–Lehmann estimate and Moses bounds match brute force") {
  // Reference: moses_bounds() in reference_values.py (the exact one-sided test
  // inverted over every pairwise difference).
  std::vector<double> a{10.1, 9.7, 10.4, 9.9, 10.0, 10.3, 9.8};
  std::vector<double> b{10.6, 10.2, 10.9, 10.5, 10.8, 10.35};
  ShiftAnalysis s(a, b);
  CHECK(s.exact());
  CHECK(s.estimate() == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(hodges_lehmann(a, b) == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(s.lower_bound(0.025) == doctest::Approx(0.2).epsilon(1e-12));
  CHECK(s.upper_bound(0.025) == doctest::Approx(0.9).epsilon(1e-12));
  CHECK(s.upper_bound(0.05) == doctest::Approx(0.8).epsilon(1e-12));
  CHECK(s.lower_bound(0.001) == doctest::Approx(-0.2).epsilon(1e-12));
  CHECK(s.upper_bound(0.001) == doctest::Approx(1.2).epsilon(1e-12));
}

TEST_CASE("the shift test at zero is the Mann–Whitney test") {
  std::vector<double> a{3.1, 2.7, 3.4, 2.9, 3.0, 3.3}, b{3.5, 3.2, 3.9, 3.6, 2.8};
  ShiftAnalysis s(a, b);
  RankSum r = mann_whitney(a, b);
  CHECK(s.p_above(0) == r.p_greater);
  CHECK(s.p_below(0) == r.p_less);
}

TEST_CASE("a reported bound never disagrees with the test it comes from") {
  // For random samples (with and without ties) and shifts on and between the pairwise
  // differences: p_above(delta) <= alpha exactly when delta < lower_bound(alpha).
  std::mt19937_64 gen(42);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::normal_distribution<double> noise(0, 1);
  for (int trial = 0; trial < 40; ++trial) {
    bool ties = trial % 2;
    unsigned m = 5 + trial % 7, n = 5 + trial % 5;
    std::vector<double> a, b;
    for (unsigned i = 0; i < m; ++i) a.push_back(ties ? std::round(2 * noise(gen)) : noise(gen));
    for (unsigned i = 0; i < n; ++i)
      b.push_back((ties ? std::round(2 * noise(gen)) : noise(gen)) + 1);
    ShiftAnalysis s(a, b);
    CHECK(s.exact() == !ties);
    std::vector<double> deltas;
    for (double x : a)
      for (double y : b) deltas.push_back(y - x), deltas.push_back(y - x + 1e-9);
    for (double alpha : {0.001, 0.01, 0.05, 0.2}) {
      double lo = s.lower_bound(alpha), hi = s.upper_bound(alpha);
      for (double d : deltas) {
        CAPTURE(trial);
        CAPTURE(alpha);
        CAPTURE(d);
        CHECK((s.p_above(d) <= alpha) == (d < lo));
        CHECK((s.p_below(d) <= alpha) == (d > hi));
      }
    }
  }
}

TEST_CASE("too few trials for a level gives an infinite bound, not a wrong one") {
  std::vector<double> a{1, 2, 3, 4, 5}, b{11, 12, 13, 14, 15};
  ShiftAnalysis s(a, b);
  // Complete separation at 5 + 5 has p = 1/252 ~ 0.004: nothing is rejected at 0.001.
  CHECK(s.lower_bound(0.001) == -INFINITY);
  CHECK(s.upper_bound(0.001) == INFINITY);
  CHECK(s.lower_bound(0.005) == 6);  // the smallest difference
  CHECK(s.p_above(5.9) == doctest::Approx(1.0 / 252));
}

TEST_CASE("a difference equal to the tested shift counts against the alternative") {
  // b - a has the single difference 1: at delta = 1 neither p_above nor p_below may
  // treat it as evidence.
  std::vector<double> a{0}, b{1};
  ShiftAnalysis s(a, b);
  CHECK(s.p_above(1) == 1);
  CHECK(s.p_below(1) == 1);
  CHECK(s.p_above(0.999) == 0.5);
}

TEST_CASE("Moses bounds cover the true shift as often as promised") {
  // 95% two-sided intervals for normal samples of 10 and 12 shifted by 0.7.
  std::mt19937_64 gen(7);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::normal_distribution<double> noise(0, 1);
  int covered = 0, runs = 2000;
  for (int r = 0; r < runs; ++r) {
    std::vector<double> a(10), b(12);
    for (double& v : a) v = noise(gen);
    for (double& v : b) v = noise(gen) + 0.7;
    ShiftAnalysis s(a, b);
    covered += s.lower_bound(0.025) <= 0.7 && 0.7 <= s.upper_bound(0.025);
  }
  // Exact intervals are conservative by the discreteness of U: at least 95% (less 3
  // standard errors of 2000 runs), and not absurdly wide.
  CHECK(covered >= 0.95 * runs - 3 * std::sqrt(0.05 * 0.95 * runs));
  CHECK(covered <= 0.985 * runs);
}
