#include "tuner/verify/stats.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace tuner::verify;

namespace {

bool close(double got, double want, double rel) {
  return std::fabs(got - want) <= rel * std::fabs(want);
}

}  // namespace

TEST_CASE("median, quantile and trimmed mean of benchmark-like samples") {
  std::vector<double> odd{9.9, 10.4, 10.1, 55.0, 10.0};  // one wild run
  CHECK(median(odd) == 10.1);
  CHECK(mean(odd) == doctest::Approx(19.08));  // the wild run drags the mean
  std::vector<double> even{4, 1, 3, 2};
  CHECK(median(even) == 2.5);
  // Type 7 by hand: h = (n - 1) q = 0.75 -> 1 + 0.75 (2 - 1).
  CHECK(quantile(even, 0.25) == 1.75);
  CHECK(quantile(even, 0) == 1);
  CHECK(quantile(even, 1) == 4);
  // Trimming 20% of 5 values drops one from each end: mean of 10.0, 10.1, 10.4.
  CHECK(trimmed_mean(odd, 0.2) == doctest::Approx(10.166666666666666));
  CHECK(trimmed_mean(odd, 0.0) == doctest::Approx(mean(odd)));
}

TEST_CASE("descriptive statistics of nothing are NaN, not a made-up number") {
  std::vector<double> none;
  CHECK(std::isnan(median(none)));
  CHECK(std::isnan(mean(none)));
  CHECK(std::isnan(trimmed_mean(none, 0.1)));
  std::vector<double> one{3};
  CHECK(std::isnan(quantile(one, 1.5)));
  CHECK(std::isnan(trimmed_mean(one, 0.5)));
}

TEST_CASE("mean keeps the digits of values with a large common magnitude") {
  // 1e9 + k for k = 0..999: naive float summation would lose the fractional part.
  std::vector<double> v;
  v.reserve(1000);
  for (int k = 0; k < 1000; ++k) v.push_back(1e9 + k + 0.25);
  CHECK(mean(v) == 1e9 + 499.5 + 0.25);
}

TEST_CASE("normal quantile matches Python's statistics.NormalDist to ~1e-15") {
  // Reference: python3 tuner/verify/reference_values.py (NormalDist.inv_cdf, AS241).
  struct {
    double p, z;
  } refs[] = {
      {0.975, 1.9599639845400536},    {0.99, 2.3263478740408408},  {0.995, 2.5758293035489},
      {1e-10, -6.361340902404056},    {1e-300, -37.0470962993612}, {0.999999, 4.753424308817089},
      {0.02425, -1.9729610513118845}, {0.3, -0.5244005127080407},
  };
  for (auto r : refs) {
    CAPTURE(r.p);
    CHECK(close(normal_quantile(r.p), r.z, 1e-14));
  }
  CHECK(normal_quantile(0.5) == 0);
  CHECK(normal_quantile(0) == -std::numeric_limits<double>::infinity());
  CHECK(normal_quantile(1) == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(normal_quantile(-0.1)));
}

TEST_CASE("normal cdf and upper tail, far into the tail") {
  // Reference: math.erfc in python3 (reference_values.py).
  CHECK(close(normal_cdf(-1.959963984540054), 0.02500000000000002, 1e-14));
  CHECK(normal_cdf(0) == 0.5);
  CHECK(close(normal_cdf(1.2345), 0.8914916766373298, 1e-15));
  CHECK(close(normal_upper(10), 7.619853024160593e-24, 1e-13));
  CHECK(close(normal_upper(37), 5.725571222525139e-300, 1e-12));
  // Round trip over the range the decision uses.
  for (double p : {1e-12, 1e-7, 0.001, 0.0123, 0.2, 0.5, 0.77, 0.999})
    CHECK(close(normal_cdf(normal_quantile(p)), p, 1e-13));
}
