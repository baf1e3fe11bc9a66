// The class check (class_pool.h) on numbers worked by hand, and the chi-squared tail
// against tabulated quantiles.
#include "tuner/verify/class_pool.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace tuner::verify;

TEST_CASE("class check: the chi-squared tail matches its tables") {
  // Upper 5% and 1% points (any statistics table).
  CHECK(chi_squared_upper(3.841459, 1) == doctest::Approx(0.05).epsilon(1e-5));
  CHECK(chi_squared_upper(5.991465, 2) == doctest::Approx(0.05).epsilon(1e-5));
  CHECK(chi_squared_upper(11.34487, 3) == doctest::Approx(0.01).epsilon(1e-5));
  CHECK(chi_squared_upper(0.1025866, 2) == doctest::Approx(0.95).epsilon(1e-5));
  CHECK(chi_squared_upper(0, 1) == 1);
  CHECK(chi_squared_upper(200, 1) < 1e-40);
  CHECK(std::isnan(chi_squared_upper(1, 0)));
}

TEST_CASE("class check: two compatible canaries, the bound worked by hand") {
  // +6% and +7%, 95% intervals with lower ends +4.5% and +5.5%, on the log scale.
  std::vector<CanaryEffect> c = {{0.06, 0.045, 0.95}, {0.07, 0.055, 0.95}};
  ClassCheckConfig cfg;  // min_effect 2%, 1%, spread 1.5%, bias 1%
  ClassCheckResult r = check_class(c, cfg);
  const double z95 = 1.959963984540054, z99 = 2.326347874040841;
  double s1 = std::log1p(0.06), s2 = std::log1p(0.07);
  double se1 = (s1 - std::log1p(0.045)) / z95, se2 = (s2 - std::log1p(0.055)) / z95;
  double q = (s1 - s2) * (s1 - s2) / (se1 * se1 + se2 * se2 + 2 * 0.015 * 0.015);
  CHECK(r.q == doctest::Approx(q));
  CHECK(r.df == 1);
  CHECK(r.q_p == doctest::Approx(2 * (1 - 0.5 * std::erfc(-std::sqrt(q) / std::sqrt(2.0)))));
  double se_c = std::sqrt(se1 * se1 + se2 * se2) / 2;
  double se_s = std::sqrt(0.015 * 0.015 / 2 + 0.01 * 0.01);
  CHECK(r.se_canaries == doctest::Approx(se_c));
  CHECK(r.se_spread == doctest::Approx(se_s));
  double mean = (s1 + s2) / 2, low = mean - z99 * std::sqrt(se_c * se_c + se_s * se_s);
  CHECK(r.effect == doctest::Approx(std::expm1(mean)));
  CHECK(r.low == doctest::Approx(std::expm1(low)));
  CHECK(r.verdict == ClassCheck::keep);
  // The same numbers at min_effect 3%: the bound (about +2.8%) does not clear it.
  cfg.min_effect = 0.03;
  CHECK(check_class(c, cfg).verdict == ClassCheck::no_margin);
}

TEST_CASE("class check: effects too far apart for node spread are heterogeneous") {
  std::vector<CanaryEffect> c = {{0.03, 0.022, 0.95}, {0.20, 0.18, 0.95}};
  ClassCheckResult r = check_class(c, {});
  CHECK(r.verdict == ClassCheck::heterogeneous);
  CHECK(r.q_p < 1e-6);
  // Sizes that differ but where even the smaller clears the margin alone: a 10x gain
  // on one node and 12x on the other decide the same keep.
  std::vector<CanaryEffect> big = {{9.0, 8.5, 0.95}, {11.0, 10.5, 0.95}};
  ClassCheckResult b = check_class(big, {});
  CHECK(b.differ);
  CHECK(b.verdict == ClassCheck::keep);
  CHECK(b.low < b.effect);
  // Allow a spread of 10% between nodes and they are compatible again.
  ClassCheckConfig wide;
  wide.node_spread = 0.10;
  CHECK(check_class(c, wide).verdict != ClassCheck::heterogeneous);
}

TEST_CASE("class check: a latency gain is pooled on its own scale") {
  // Lower is better: -10% latency is +0.10; its score is -log(1 - 0.10).
  std::vector<CanaryEffect> c = {{0.10, 0.08, 0.95, Scale::ratio, true},
                                 {0.11, 0.09, 0.95, Scale::ratio, true}};
  ClassCheckResult r = check_class(c, {});
  double mean = (-std::log1p(-0.10) - std::log1p(-0.11)) / 2;
  CHECK(r.effect == doctest::Approx(-std::expm1(-mean)));
  CHECK(r.verdict == ClassCheck::keep);
}

TEST_CASE("class check: no usable interval is no_interval, never a keep") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (CanaryEffect bad : {CanaryEffect{0.06, -inf, 0.95}, CanaryEffect{nan, 0.01, 0.95},
                           CanaryEffect{0.06, 0.07, 0.95}, CanaryEffect{0.06, 0.05, 1.0}}) {
    std::vector<CanaryEffect> c = {{0.06, 0.045, 0.95}, bad};
    CHECK(check_class(c, {}).verdict == ClassCheck::no_interval);
  }
  CHECK(check_class({}, {}).verdict == ClassCheck::no_interval);
}
