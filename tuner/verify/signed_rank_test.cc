#include "tuner/verify/signed_rank.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace tuner::verify;

namespace {

// P(W+ >= w) by listing all 2^n sign patterns of ranks 1..n.
double enumerated_upper(unsigned n, unsigned w) {
  unsigned hits = 0;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    unsigned sum = 0;
    for (unsigned k = 1; k <= n; ++k)
      if (mask & (1u << (k - 1))) sum += k;
    hits += sum >= w;
  }
  return static_cast<double>(hits) / (1u << n);
}

}  // namespace

TEST_CASE("signed-rank null distribution: enumeration and published tables") {
  for (unsigned n = 1; n <= 12; ++n)
    for (unsigned w = 0; w <= n * (n + 1) / 2 + 1; ++w) {
      CAPTURE(n);
      CAPTURE(w);
      CHECK(signed_rank_upper(n, w) == doctest::Approx(enumerated_upper(n, w)).epsilon(1e-12));
    }
  // By symmetry P(W+ >= n(n+1)/2 - c) = P(W+ <= c). Reference values: exact integer
  // counts in python3 (the recurrence over ranks); the 5% critical values of the
  // standard tables (n = 10: W <= 10, 0.0420; n = 20: W <= 60, 0.0487).
  CHECK(signed_rank_upper(10, 55 - 10) == doctest::Approx(0.0419921875));
  CHECK(signed_rank_upper(20, 210 - 60) == doctest::Approx(0.0486536026));
  CHECK(signed_rank_upper(40, 820 - 20) == doctest::Approx(3.374225e-10).epsilon(1e-5));
  // Fractional statistics round up; out of range is certain or impossible.
  CHECK(signed_rank_upper(10, 44.5) == signed_rank_upper(10, 45));
  CHECK(signed_rank_upper(10, 0) == 1);
  CHECK(signed_rank_upper(10, 56) == 0);
  // Past the exact range, the normal approximation agrees with the exact tail.
  double exact = signed_rank_upper(kSignedRankExactMax, 45000);
  double approx = signed_rank_upper(kSignedRankExactMax + 1, 45000 + 200);
  CHECK(exact == doctest::Approx(approx).epsilon(0.05));
}

TEST_CASE("Walsh averages: the count above delta is W+ of the shifted contrasts") {
  std::vector<double> d{0.3, -0.1, 0.25, 0.05, -0.4, 0.6, 0.15};
  SignedRankShift s(d);
  CHECK(s.units() == 7);
  CHECK_FALSE(s.has_ties());
  for (double delta : {-0.5, -0.05, 0.0, 0.1, 0.2, 0.7}) {
    // W+ by ranks of |d - delta|.
    std::vector<double> x;
    x.reserve(d.size());
    for (double v : d) x.push_back(v - delta);
    std::vector<double> mag;
    mag.reserve(x.size());
    for (double v : x) mag.push_back(std::fabs(v));
    std::vector<double> sorted = mag;
    std::sort(sorted.begin(), sorted.end());
    unsigned w = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i] > 0)
        w += static_cast<unsigned>(std::lower_bound(sorted.begin(), sorted.end(), mag[i]) -
                                   sorted.begin()) +
             1;
    CAPTURE(delta);
    CHECK(s.p_above(delta) == doctest::Approx(signed_rank_upper(7, w)));
  }
  // The estimate is the median of the 28 Walsh averages.
  CHECK(s.estimate() == doctest::Approx(0.125));
}

TEST_CASE("bounds invert the tests exactly, and ties count against the alternative") {
  std::mt19937_64 gen(5);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::normal_distribution<double> noise(0.02, 0.03);
  std::vector<double> d;
  d.reserve(25);
  for (int i = 0; i < 25; ++i) d.push_back(noise(gen));
  SignedRankShift s(d);
  for (double alpha : {0.001, 0.01, 0.025, 0.2}) {
    double lo = s.lower_bound(alpha), hi = s.upper_bound(alpha);
    CAPTURE(alpha);
    CHECK(lo < s.estimate());
    CHECK(s.estimate() < hi);
    CHECK(s.p_above(std::nextafter(lo, -1.0)) <= alpha);
    CHECK(s.p_above(lo) > alpha);
    CHECK(s.p_below(std::nextafter(hi, 1.0)) <= alpha);
    CHECK(s.p_below(hi) > alpha);
  }
  // Too few units to reject at this level: the bound is infinite.
  std::vector<double> three{0.1, 0.2, 0.3};
  CHECK(std::isinf(SignedRankShift(three).lower_bound(0.01)));
  CHECK(std::isinf(SignedRankShift(three).upper_bound(0.01)));
  // Quantised contrasts: zeros and equal magnitudes are ties, and a Walsh average
  // equal to delta is not counted as above it.
  std::vector<double> q{1, -1, 0, 2, 2, 1};
  SignedRankShift t(q);
  CHECK(t.has_ties());
  CHECK(t.p_above(2) == 1);  // no Walsh average is above 2
  CHECK(t.p_above(1.999) < 1);
}
