#include "tuner/verify/rank_sum.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace tuner::verify;

namespace {

bool close(double got, double want, double rel) {
  return std::fabs(got - want) <= rel * std::fabs(want);
}

// The null distribution of U by brute force: every way of giving n of the ranks
// 1..m+n to y, each equally likely under H0. Returns P(U >= u) for u = 0..m n.
std::vector<double> enumerate_upper(unsigned m, unsigned n) {
  unsigned total = m + n;
  std::vector<double> count(m * n + 1, 0);
  double ways = 0;
  for (unsigned mask = 0; mask < (1u << total); ++mask) {
    if (static_cast<unsigned>(__builtin_popcount(mask)) != n) continue;
    // U = #(y > x) = sum over y ranks of the x ranks below it.
    unsigned u = 0, xs_below = 0;
    for (unsigned r = 0; r < total; ++r) {
      if (mask & (1u << r)) u += xs_below;
      else ++xs_below;
    }
    ++count[u];
    ++ways;
  }
  std::vector<double> upper(m * n + 1);
  double run = 0;
  for (unsigned u = m * n + 1; u-- > 0;) {
    run += count[u];
    upper[u] = run / ways;
  }
  return upper;
}

}  // namespace

TEST_CASE("exact distribution of U equals exhaustive enumeration") {
  for (auto sizes : {std::pair{5u, 5u}, {4u, 6u}, {7u, 3u}, {1u, 8u}, {8u, 8u}}) {
    // Named copies: clang 14 cannot capture structured bindings (CAPTURE is a lambda).
    const unsigned m = sizes.first, n = sizes.second;
    std::vector<double> want = enumerate_upper(m, n);
    for (unsigned u = 0; u <= m * n; ++u) {
      CAPTURE(m);
      CAPTURE(n);
      CAPTURE(u);
      CHECK(close(rank_sum_exact_upper(m, n, u), want[u], 1e-13));
    }
    CHECK(rank_sum_exact_upper(m, n, m * n + 1) == 0);
  }
}

TEST_CASE("exact tails at 40 and 50 per arm match exact integer arithmetic") {
  // Reference: python3 tuner/verify/reference_values.py (Fractions over the recurrence).
  CHECK(close(rank_sum_exact_upper(40, 40, 800), 0.5019085400661762, 1e-13));
  CHECK(close(rank_sum_exact_upper(40, 40, 1000), 0.02728809428825018, 1e-12));
  CHECK(close(rank_sum_exact_upper(40, 40, 1200), 4.076496866477145e-05, 1e-12));
  CHECK(close(rank_sum_exact_upper(40, 40, 1500), 1.4594501443078348e-14, 1e-12));
  CHECK(close(rank_sum_exact_upper(40, 40, 1600), 9.301701828018132e-24, 1e-12));
  CHECK(close(rank_sum_exact_upper(50, 50, 1800), 5.6977422840425536e-05, 1e-12));
}

TEST_CASE("R's wilcox.test example: W = 35, one-sided p = 0.1272") {
  // ?wilcox.test in R (Hollander and Wolfe 1973, p. 69, permeability constants),
  // wilcox.test(x, y, alternative = "greater"); confirmed by enumeration in
  // reference_values.py: 0.1272061272061272.
  std::vector<double> x{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  std::vector<double> y{1.15, 0.88, 0.90, 0.74, 1.21};
  RankSum r = mann_whitney(y, x);  // U of x over y is R's W
  CHECK(r.u == 35);
  CHECK(r.exact);
  CHECK(close(r.p_greater, 0.1272061272061272, 1e-13));
  // The other direction is the mirror image.
  RankSum back = mann_whitney(x, y);
  CHECK(back.u == 50 - 35);
  CHECK(close(back.p_less, r.p_greater, 1e-13));
}

TEST_CASE("ties use mid-ranks and the tie-corrected normal approximation") {
  // Reference values: normal_mw() in reference_values.py.
  std::vector<double> x{1, 2, 2, 3, 4}, y{2, 3, 3, 5, 6, 7};
  RankSum r = mann_whitney(x, y);
  CHECK_FALSE(r.exact);
  CHECK(r.u == 24);
  CHECK(close(r.variance, 28.90909090909091, 1e-14));
  CHECK(close(r.p_greater, 0.056951572294265285, 1e-12));
  CHECK(close(r.p_less, 0.9613756091726351, 1e-12));
}

TEST_CASE("no data or no spread is no evidence") {
  std::vector<double> none, same{5, 5, 5}, other{5, 5};
  CHECK(mann_whitney(none, same).p_greater == 1);
  RankSum r = mann_whitney(same, other);
  CHECK(r.p_greater == 1);
  CHECK(r.p_less == 1);
}

TEST_CASE("one wild run moves U by at most the other sample's size") {
  std::vector<double> a{10.0, 10.2, 9.9, 10.1, 9.8, 10.3, 10.05, 9.95};
  std::vector<double> b{10.4, 10.6, 10.5, 10.7, 10.45, 10.55, 10.65, 10.35};
  RankSum clean = mann_whitney(a, b);
  b[0] = 1e-3;  // a run that hung: 10000 times slower
  RankSum wild = mann_whitney(a, b);
  CHECK(clean.u - wild.u <= a.size());
  CHECK(wild.p_greater < 0.01);  // still clearly better (a mean would now be 10x lower)
}

TEST_CASE("in the tails the decision uses, the normal approximation errs on the safe side") {
  // Past kExactMaxPerSample, and with ties, only the approximation is available. U is
  // bounded, so its tails are lighter than the normal's: for p below 2.5% the
  // approximate p-value is larger than the exact one (never keeps more), and within a
  // factor of 2 down to p = 1e-5 at 50 per arm.
  for (unsigned n : {20u, 40u, 50u}) {
    double mean = n * n / 2.0, sd = std::sqrt(n * n * (2.0 * n + 1) / 12);
    for (int step = 0; step <= 8; ++step) {
      const double z = 2.0 + 0.25 * step;
      double u = std::ceil(mean + z * sd);
      double exact = rank_sum_exact_upper(n, n, u);
      double approx = rank_sum_normal_upper(n, n, u, 0);
      CAPTURE(n);
      CAPTURE(z);
      CHECK(approx >= exact);
      if (n == 50) CHECK(approx <= 2 * exact);
    }
  }
}
