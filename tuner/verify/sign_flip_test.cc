#include "tuner/verify/sign_flip.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace tuner::verify;

namespace {

// The same law by enumerating every sign pattern of the contrasts on the grid.
double enumerated(const std::vector<double>& d) {
  double largest = 0;
  for (double v : d) largest = std::max(largest, std::fabs(v));
  std::vector<long> k;
  long observed = 0;
  for (double v : d) {
    k.push_back(std::lround(std::fabs(v) / largest * kSignFlipGrid));
    observed += v < 0 ? -k.back() : k.back();
  }
  unsigned n = static_cast<unsigned>(d.size()), hits = 0;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    long s = 0;
    for (unsigned i = 0; i < n; ++i) s += (mask >> i & 1) ? k[i] : -k[i];
    hits += s >= observed;
  }
  return static_cast<double>(hits) / (1u << n);
}

}  // namespace

TEST_CASE("sign flip: all positive contrasts give 2^-n, all negative 1") {
  std::vector<double> up(10, 0.05);
  up[3] = 0.07;
  CHECK(sign_flip_upper(up) == doctest::Approx(std::ldexp(1.0, -10)));
  std::vector<double> down = up;
  for (double& v : down) v = -v;
  CHECK(sign_flip_upper(down) == doctest::Approx(1.0));
  CHECK(sign_flip_upper({}) == 1.0);
  CHECK(sign_flip_upper(std::vector<double>(5, 0.0)) == 1.0);
}

TEST_CASE("sign flip: the law matches enumeration of every sign pattern") {
  std::vector<std::vector<double>> cases = {
      {0.04, 0.06, -0.01, 0.03, 0.05, 0.02, -0.02, 0.07},
      {0.064, 0.051, 0.08, -0.26, 0.07, 0.06, 0.055, 0.072, 0.049, 0.066, 0.058, 0.061},
      {0.3, -0.01, 0.02, 0.01, -0.02, 0.015, 0.0, 0.01},
      {-0.5, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
  };
  for (const auto& d : cases) {
    CAPTURE(d.size());
    CHECK(sign_flip_upper(d) == doctest::Approx(enumerated(d)).epsilon(1e-12));
  }
}

TEST_CASE("sign flip: one stall among small gains weighs as much as its size") {
  // 19 units gaining about 8%, one 25% slow: the mean is still 6.4% up, and the stall
  // costs the test a factor of about 2 (its sign is a coin under the null).
  std::vector<double> d(19, 0.08);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] += 0.01 * static_cast<double>(i % 5) - 0.02;
  double clean = sign_flip_upper(d);
  d.push_back(-0.25);
  double one = sign_flip_upper(d);
  CHECK(clean < 1e-5);
  CHECK(one > 100 * clean);
  CHECK(one < 0.01);
  // Five such stalls and the mean is gone: nothing near significance.
  for (int i = 0; i < 4; ++i) d.push_back(-0.25);
  CHECK(sign_flip_upper(d) > 0.3);
}
