// Per-look p-value thresholds for the sequential rank test, calibrated so that the
// chance of crossing at any look is what the spending function allows, no more.
//
// Why simulation is exact enough here: under H0 (each unit's contrast, less the tested
// effect, is as likely to be negative as positive, independently of its size and of the
// other units: what the coin flip of each unit's order gives) the signs are fair coins
// and the ranks of the magnitudes a uniformly random permutation, whatever the
// benchmark's noise looks like. The joint law of the signed-rank statistics at every
// look is therefore one fixed, distribution-free law per design, which we sample with
// random numbers. Its Monte Carlo error is paid for with a margin of three
// standard errors, so the calibrated rates stay below the spending function.
//
// The cheaper alternative, giving each look only its increment of the spending
// function (a union bound over looks), is valid without simulation but wastes about
// half the error rate because successive looks share most of their trials; decide()
// falls back to it where the simulation does not apply (ties, long designs).
#pragma once

#include <vector>

#include "tuner/verify/spending.h"

namespace tuner::verify {

/// Designs longer than this (units at the last look) or with more looks use the union
/// bound: the simulation's cost grows with units^2 and its memory with looks.
inline constexpr unsigned kCalibratedMaxUnits = 100;
inline constexpr unsigned kCalibratedMaxLooks = 20;

/// Simulated runs of the whole design behind each calibration.
inline constexpr unsigned kCalibrationRuns = 200000;

struct LookThresholds {
  /// One per look: reject at look k when the one-sided p-value there is <= p[k].
  std::vector<double> p;
  /// The simulated chance of rejecting by each look (cumulative), for tests and reports.
  std::vector<double> crossed;
  /// An upper bound on that chance by each look: the union bound where it decided the
  /// threshold, else the spending function (the simulation, less its margin, fits
  /// under it). Never above the spending function.
  std::vector<double> bound;
};

/// Thresholds for nested one-sided signed-rank tests on the first points[k] unit
/// contrasts (increasing, last = the design's maximum), spending `total` by `spending`
/// over information fraction points[k] / points.back(). p-values are those
/// SignedRankShift gives for tie-free contrasts. Deterministic (fixed seed); cached, thread-safe; the
/// first call for a design takes about 0.5 s for 40 trials per arm.
/// Requires points.back() <= kCalibratedMaxUnits, points.size() <= kCalibratedMaxLooks.
const LookThresholds& calibrated_thresholds(const std::vector<unsigned>& points, Spending spending,
                                            double total);

/// Thresholds by the union bound: each look gets its increment of the spending function.
LookThresholds union_thresholds(const std::vector<unsigned>& points, Spending spending,
                                double total);

}  // namespace tuner::verify
