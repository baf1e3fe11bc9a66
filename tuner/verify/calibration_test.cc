#include "tuner/verify/calibration.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "tuner/verify/signed_rank.h"
#include "tuner/verify/spending.h"

using namespace tuner::verify;

namespace {

const std::vector<unsigned> kLooks{5, 10, 15, 20, 25, 30, 35, 40};

}  // namespace

TEST_CASE("spending functions: none at the start, all at the end, never decreasing") {
  // Reference values: Lan–DeMets O'Brien–Fleming type 2 - 2 Phi(z_{1-a/2} / sqrt(t)) at
  // a = 0.025, t = 0.5 is 2 * (1 - Phi(2.2414027 / 0.7071068)) = 0.0015249 (as in
  // gsDesign's sfLDOF); Pocock type 0.05 ln(1 + (e - 1) 0.5) = 0.0310020.
  CHECK(spent(Spending::obrien_fleming, 0.025, 0.5) == doctest::Approx(0.0015249).epsilon(1e-4));
  CHECK(spent(Spending::pocock, 0.05, 0.5) == doctest::Approx(0.0310020).epsilon(1e-5));
  CHECK(spent(Spending::quadratic, 0.01, 0.5) == doctest::Approx(0.0025));
  for (Spending s : {Spending::obrien_fleming, Spending::pocock, Spending::quadratic}) {
    CAPTURE(spending_name(s));
    CHECK(spent(s, 0.01, 0) == 0);
    CHECK(spent(s, 0.01, 1) == 0.01);
    double before = 0;
    for (int k = 1; k < 20; ++k) {
      double now = spent(s, 0.01, 0.05 * k);
      CHECK(now >= before);
      CHECK(now <= 0.01);
      before = now;
    }
  }
}

TEST_CASE("union-bound thresholds add up to the total exactly") {
  LookThresholds u = union_thresholds(kLooks, Spending::quadratic, 0.01);
  double sum = 0;
  for (double p : u.p) sum += p;
  CHECK(sum == doctest::Approx(0.01).epsilon(1e-12));
  CHECK(u.p[0] == doctest::Approx(0.01 / 64));
}

TEST_CASE("calibrated thresholds stay within the spending, and give the last look more") {
  for (Spending s : {Spending::quadratic, Spending::obrien_fleming, Spending::pocock}) {
    CAPTURE(spending_name(s));
    const LookThresholds& cal = calibrated_thresholds(kLooks, s, 0.01);
    LookThresholds uni = union_thresholds(kLooks, s, 0.01);
    REQUIRE(cal.p.size() == kLooks.size());
    for (std::size_t k = 0; k < kLooks.size(); ++k) {
      CAPTURE(k);
      double allowed = spent(s, 0.01, kLooks[k] / 40.0);
      CHECK(cal.bound[k] <= allowed);
      // The simulation's own estimate is within its error of the spending, even at
      // looks the union bound decided.
      CHECK(cal.crossed[k] <= allowed + 3 * std::sqrt(allowed / kCalibrationRuns));
    }
    // The point of calibrating: the union bound counts runs that crossed at several
    // looks several times, so the calibrated last look is far less strict.
    CHECK(cal.p.back() > 1.4 * uni.p.back());
    CHECK(cal.p.back() <= 0.01);
  }
  // One look: the single test's own level.
  CHECK(calibrated_thresholds({22}, Spending::quadratic, 0.01).p == std::vector<double>{0.01});
}

TEST_CASE("calibrated looks keep the overall false-keep rate: an independent check") {
  // Fresh null data from another generator (normal contrasts, not random signs on
  // uniform magnitudes), tested with SignedRankShift (Walsh averages, a separate code
  // path from the calibration's counting): the share of runs that cross a threshold
  // at any look must be within the total, and most of it used.
  const LookThresholds& cal = calibrated_thresholds(kLooks, Spending::quadratic, 0.01);
  std::minstd_rand gen(2024);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::normal_distribution<double> normal(0, 1);
  const int runs = 20000;
  int crossed = 0;
  std::vector<double> d(40);
  for (int r = 0; r < runs; ++r) {
    for (double& v : d) v = normal(gen);
    for (std::size_t k = 0; k < kLooks.size(); ++k) {
      SignedRankShift test(std::span<const double>(d.data(), kLooks[k]));
      if (test.p_above(0) <= cal.p[k]) {
        ++crossed;
        break;
      }
    }
  }
  double rate = static_cast<double>(crossed) / runs;
  double se = std::sqrt(0.01 * 0.99 / runs);
  CHECK(rate <= 0.01 + 3 * se);
  CHECK(rate >= 0.006);  // the union bound alone would use about half
}
