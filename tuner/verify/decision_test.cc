#include "tuner/verify/decision.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace tuner::verify;

namespace {

// n values around `mean` with 1% spread, in a fixed irregular order.
std::vector<double> trials(double mean, unsigned n, unsigned seed = 1) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<double> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(mean * (1 + noise(gen)));
  return v;
}

Decision must_decide(const Config& c, const std::vector<double>& a, const std::vector<double>& b) {
  auto d = decide(c, a, b);
  REQUIRE(d.ok());
  return *d;
}

// As the verify loop runs it: one trial per arm at a time, deciding after each, until a
// verdict.
Decision run_loop(const Config& c, const std::vector<double>& a, const std::vector<double>& b) {
  Decision d;
  for (std::size_t n = 1; n <= std::min(a.size(), b.size()); ++n) {
    const auto end = static_cast<std::ptrdiff_t>(n);
    d = must_decide(c, std::vector(a.begin(), a.begin() + end),
                    std::vector(b.begin(), b.begin() + end));
    if (d.verdict != Verdict::more_trials) break;
  }
  return d;
}

}  // namespace

TEST_CASE("config ranges are checked with the field named") {
  Config c;
  CHECK(validate(c).ok());
  c.min_effect = 1.5;
  CHECK(validate(c).error().what.find("min_effect = 1.5") != std::string::npos);
  c = Config{};
  c.false_keep_rate = 0;
  CHECK(validate(c).error().what.find("false_keep_rate") != std::string::npos);
  c = Config{};
  c.max_trials = 3;  // a profile may allow 3; the rank test cannot work with it
  CHECK(validate(c).error().what.find("max_trials = 3") != std::string::npos);
  c = Config{};
  c.power_effect = 1.0;
  CHECK_FALSE(validate(c).ok());
  CHECK_FALSE(decide(c, {}, {}).ok());
}

TEST_CASE("looks: every look_every trials from min_trials, and max_trials last") {
  Config c;
  CHECK(look_points(c) == std::vector<unsigned>{5, 10, 15, 20, 25, 30, 35, 40});
  c.max_trials = 22;
  CHECK(look_points(c) == std::vector<unsigned>{5, 10, 15, 20, 22});
  CHECK(next_look(c, 0) == 5);
  CHECK(next_look(c, 12) == 15);
  CHECK(next_look(c, 22) == 0);
  CHECK(power_effect(c) == 0.05);  // max(0.05, 2 * 0.02)
  c.min_effect = 0.04;
  CHECK(power_effect(c) == 0.08);
}

TEST_CASE("verdict names are the JSON strings") {
  CHECK(verdict_name(Verdict::keep) == "keep");
  CHECK(verdict_name(Verdict::no_gain) == "no_gain");
  CHECK(verdict_name(Verdict::harm) == "harm");
  CHECK(verdict_name(Verdict::inconclusive) == "inconclusive");
  CHECK(verdict_name(Verdict::more_trials) == "continue");
}

TEST_CASE("a clear 10% gain is kept at the first look that can prove it") {
  Config c;  // min_effect 2%, false_keep_rate 1%
  auto a = trials(100, 15, 1), b = trials(110, 15, 2);
  // 5 and 10 units: even all contrasts positive (p = 1/32, 1/1024) cannot beat these
  // looks' shares (0.00016, 0.0006).
  for (std::ptrdiff_t n : {5, 10}) {
    Decision early = must_decide(c, std::vector(a.begin(), a.begin() + n),
                                 std::vector(b.begin(), b.begin() + n));
    CHECK(early.verdict == Verdict::more_trials);
  }
  Decision d = must_decide(c, a, b);
  CHECK(d.verdict == Verdict::keep);
  CHECK(d.stats.look == 3);
  CHECK(d.stats.trials == 15);
  CHECK(d.stats.units == 15);
  CHECK(d.stats.effect == doctest::Approx(0.10).epsilon(0.1));
  CHECK(d.stats.ci_low > c.min_effect);
  CHECK(d.stats.ci_level == doctest::Approx(0.95));
  CHECK(d.stats.p <= d.stats.alpha_look);
  CHECK(d.stats.calibrated);
  CHECK(d.stats.scale == Scale::ratio);
}

TEST_CASE("lower is better: 10% less latency is +10%; the same data as throughput is harm") {
  Config c;
  c.direction = Direction::lower;
  auto a = trials(2.0, 15, 3), b = trials(1.8, 15, 4);  // milliseconds
  Decision d = must_decide(c, a, b);
  CHECK(d.verdict == Verdict::keep);
  CHECK(d.stats.effect == doctest::Approx(0.10).epsilon(0.15));
  CHECK(d.stats.baseline_median > d.stats.candidate_median);
  c.direction = Direction::higher;
  Decision h = must_decide(c, a, b);
  CHECK(h.verdict == Verdict::harm);
  CHECK(h.stats.ci_high < 0);
  CHECK(h.stats.effect < -0.08);
}

TEST_CASE("no change stops as no_gain, not keep, and the interval says why") {
  Config c;
  auto a = trials(100, 40, 5), b = trials(100, 40, 6);
  Decision d = run_loop(c, a, b);
  CHECK(d.verdict == Verdict::no_gain);
  CHECK(d.stats.ci_high < power_effect(c));
  CHECK(d.stats.trials < 40);  // stopped early: 1% noise rules out 5% quickly
}

TEST_CASE("a gain just at the threshold is not kept") {
  Config c;
  c.min_effect = 0.05;
  c.power_effect = 0.10;
  auto a = trials(100, 40, 7), b = trials(105, 40, 8);
  Decision d = run_loop(c, a, b);
  CHECK(d.verdict != Verdict::keep);
}

TEST_CASE("the answer depends only on the trials of the latest look") {
  Config c;
  auto a = trials(100, 12, 9), b = trials(100.5, 12, 10);
  Decision at10 = must_decide(c, std::vector(a.begin(), a.begin() + 10),
                              std::vector(b.begin(), b.begin() + 10));
  b[11] = 1e9;  // the 12th candidate trial is past the look: it must not count
  Decision at12 = must_decide(c, a, b);
  CHECK(at12.verdict == at10.verdict);
  CHECK(at12.stats.look == at10.stats.look);
  CHECK(at12.stats.p == at10.stats.p);
  CHECK(at12.stats.effect == at10.stats.effect);
  auto more = b;
  more.resize(14, 100.0);  // unequal arms: the shorter one sets the look
  CHECK(must_decide(c, a, more).stats.look == 2);
}

TEST_CASE("before the first look there is nothing to decide") {
  Config c;
  Decision d = must_decide(c, trials(100, 4), trials(100, 9));
  CHECK(d.verdict == Verdict::more_trials);
  CHECK(d.stats.look == 0);
  CHECK(d.stats.looks == 8);
  CHECK(std::isnan(d.stats.effect));
}

TEST_CASE("one hung run in the candidate does not make or break a decision") {
  Config c;
  // No real change, but one candidate trial reads 30 times higher (a cached result):
  // a comparison of means would call that a 290% gain.
  auto a = trials(100, 20, 11), b = trials(100, 20, 12);
  b[3] = 3000;
  Decision d = run_loop(c, a, b);
  CHECK(d.verdict != Verdict::keep);
  CHECK(std::fabs(d.stats.effect) < 0.02);
  // A real 10% gain with one run 30% slow is still kept. (Its unit's contrast gets
  // the largest rank with the wrong sign: several such units cost power, the outlier
  // rows of the README's simulation.)
  auto g = trials(110, 20, 13);
  g[7] *= 0.7;
  CHECK(run_loop(c, a, g).verdict == Verdict::keep);
}

TEST_CASE("quantized values (ties) fall back to the union bound, still decide") {
  Config c;
  std::vector<double> a, b;
  for (double v : trials(100, 20, 14)) a.push_back(std::round(v));
  for (double v : trials(112, 20, 15)) b.push_back(std::round(v));
  Decision d = must_decide(c, a, b);
  CHECK_FALSE(d.stats.calibrated);
  CHECK(d.verdict == Verdict::keep);
}

TEST_CASE("values <= 0 use differences relative to |baseline median|") {
  Config c;
  std::vector<double> a, b;  // a score around -50 where higher is better
  for (double v : trials(50, 15, 16)) a.push_back(-v);
  for (double v : trials(45, 15, 17)) b.push_back(-v);  // -45: 10% better
  Decision d = must_decide(c, a, b);
  CHECK(d.stats.scale == Scale::difference);
  CHECK(d.verdict == Verdict::keep);
  CHECK(d.stats.effect == doctest::Approx(0.10).epsilon(0.15));
  std::vector<double> zero(10, 0.0);
  zero[0] = -1;
  zero[1] = 1;
  CHECK_FALSE(decide(c, zero, b).ok());
}

TEST_CASE("a non-finite trial is an error naming it") {
  Config c;
  auto a = trials(100, 10), b = trials(100, 10);
  b[6] = NAN;
  auto d = decide(c, a, b);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().what == "candidate trial 7 is not a finite number");
}

TEST_CASE("units: one contrast per unit, so what moves a whole unit cancels") {
  // Blocked design, 3 trials per arm per unit: each unit's trials share an offset of
  // up to +-20% (a link that renegotiated to a different state), which a test on
  // single trials would read as noise 20 times the real spread.
  Config c;
  c.unit = 3;
  c.min_trials = c.look_every = 6;
  c.max_trials = 30;
  std::vector<double> a = trials(100, 30, 21), b = trials(110, 30, 22);
  std::mt19937_64 gen(23);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::uniform_real_distribution<double> offset(0.8, 1.2);
  for (unsigned u = 0; u < 10; ++u) {
    double o = offset(gen);
    for (unsigned i = 3 * u; i < 3 * u + 3; ++i) a[i] *= o, b[i] *= o;
  }
  Decision d = run_loop(c, a, b);
  CHECK(d.verdict == Verdict::keep);
  CHECK(d.stats.units == d.stats.trials / 3);
  CHECK(d.stats.effect == doctest::Approx(0.10).epsilon(0.1));
  // The same trials read as units of one trial per arm (pairs) see the offsets too,
  // but the pairs of a unit share them, so they cancel as well.
  c.unit = 1;
  CHECK(run_loop(c, a, b).verdict == Verdict::keep);
  // A unit longer than a look is refused, naming the field.
  c.unit = 7;
  auto bad = decide(c, a, b);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("unit = 7") != std::string::npos);
}

TEST_CASE("the noise pre-check says when max_trials is too few for power_effect") {
  Config c;                 // power_effect 5%
  std::mt19937_64 gen(31);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::normal_distribution<double> quiet(0, 0.01), loud(0, 0.15);
  std::vector<double> a, b, la, lb;
  for (int i = 0; i < 5; ++i) {
    a.push_back(100 * (1 + quiet(gen)));
    b.push_back(100 * (1 + quiet(gen)));
    la.push_back(100 * std::exp(loud(gen)));
    lb.push_back(100 * std::exp(loud(gen)));
  }
  Decision q = must_decide(c, a, b), l = must_decide(c, la, lb);
  CHECK(q.stats.power_at_max > 0.99);
  CHECK(q.stats.trials_needed <= 10);
  CHECK(l.stats.power_at_max < 0.5);  // 15% noise: a 5% gain needs far more than 40
  CHECK(l.stats.trials_needed > 100);
  CHECK(std::isnan(must_decide(c, trials(100, 4), trials(100, 4)).stats.power_at_max));
}

TEST_CASE("noise pre-check: outliers the signed-rank test leaves out still weigh on the mean") {
  // 1% noise and one trial in ten 30% slow in either arm: the signed-rank test leaves
  // the slow units out and would find +5% easily, the mean test has their spread. The
  // pre-check warns with the mean test on, not with it off.
  Config c;
  auto a = trials(100, 20, 71), b = trials(100, 20, 72);
  a[3] *= 0.7;
  a[14] *= 0.7;
  b[8] *= 0.7;
  b[17] *= 0.7;
  Decision with_mean = must_decide(c, a, b);
  c.mean_test = false;
  Decision without = must_decide(c, a, b);
  CHECK(without.stats.power_at_max > 0.95);
  CHECK(with_mean.stats.power_at_max < 0.8);
  CHECK(with_mean.stats.trials_needed > 40);
}

TEST_CASE("the interval always agrees with the verdict") {
  Config c;
  c.min_effect = 0.01;
  std::mt19937_64 gen(99);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::normal_distribution<double> noise(0, 0.03);
  int verdicts[5] = {};
  for (int r = 0; r < 300; ++r) {
    double effect = (r % 5 - 1) * 0.02;  // -2% .. +6%
    std::vector<double> a, b;
    for (unsigned n = 1; n <= c.max_trials; ++n) {
      a.push_back(100 * (1 + noise(gen)));
      b.push_back(100 * (1 + effect) * (1 + noise(gen)));
    }
    Decision d = run_loop(c, a, b);
    ++verdicts[static_cast<int>(d.verdict)];
    CAPTURE(r);
    if (d.verdict == Verdict::keep) CHECK(d.stats.ci_low > c.min_effect);
    if (d.verdict == Verdict::no_gain) CHECK(d.stats.ci_high < power_effect(c));
    if (d.verdict == Verdict::harm) CHECK(d.stats.ci_high < 0);
    CHECK(d.stats.ci_low <= d.stats.effect);
    CHECK(d.stats.effect <= d.stats.ci_high);
  }
  CHECK(verdicts[static_cast<int>(Verdict::keep)] > 0);
  CHECK(verdicts[static_cast<int>(Verdict::no_gain)] > 0);
  CHECK(verdicts[static_cast<int>(Verdict::more_trials)] == 0);
}

TEST_CASE("outlier units: a trial far from the pool, at most a quarter, k = 0 keeps all") {
  // Scores (log values) of 8 units of one trial per arm; the candidate is +5%.
  std::vector<double> a = {0.00, 0.01, -0.01, 0.005, 0.00, -0.005, 0.01, 0.00};
  std::vector<double> b = {0.05, 0.06, 0.04, 0.055, -0.40, 0.045, 0.05, 0.05};
  auto kept = without_outliers(a, b, 1, 6, 0.0);
  CHECK(kept.size() == 7);
  CHECK(std::find_if(kept.begin(), kept.end(), [](double c) { return c < 0; }) == kept.end());
  auto all = without_outliers(a, b, 1, 0, 0.0);
  REQUIRE(all.size() == 8);
  CHECK(all[4] == doctest::Approx(-0.40));
  // Measured against the pool with the candidate moved back by delta: around delta =
  // 0.05 the -0.40 trial is still far, the rest are close.
  CHECK(without_outliers(a, b, 1, 6, 0.05).size() == 7);
  // Never more than a quarter: three wild units of eight, only the two farthest go.
  std::vector<double> wa = {0.01, -0.01, 0.02, -0.02, 0.9, 0.0, 0.0, 0.015};
  std::vector<double> wb = {0.0, 0.01, 0.0, 0.0, 0.0, -0.8, 0.7, 0.0};
  auto two_gone = without_outliers(wa, wb, 1, 6, 0.0);
  CHECK(two_gone.size() == 6);
  CHECK(std::find_if(two_gone.begin(), two_gone.end(),
                     [](double c) { return std::fabs(c - 0.7) < 1e-9; }) != two_gone.end());
  // Fewer than four units, or no spread at all: nothing is left out.
  std::vector<double> three_a = {0.0, 0.01, 0.0}, three_b = {0.01, 0.02, 5.0};
  CHECK(without_outliers(three_a, three_b, 1, 6, 0.0).size() == 3);
  std::vector<double> flat(8, 1.0), flat_b = {1, 1, 1, 1, 1, 1, 1, 9};
  CHECK(without_outliers(flat, flat_b, 1, 6, 0.0).size() == 8);
  // Blocks: a unit of 3 trials per arm is its arms' mean contrast, left out whole.
  std::vector<double> ba(12, 0.0), bb(12, 0.05);
  bb[4] = -0.5;
  auto blocks = without_outliers(ba, bb, 3, 6, 0.0);
  REQUIRE(blocks.size() == 3);  // 4 units (cap 1): the slow trial's unit goes
  CHECK(blocks[1] == doctest::Approx(0.05));
}

TEST_CASE("outlier units: swapping a unit's arms never changes which units are left out") {
  // The validity argument: the rule reads the pool and the unit's own trials only.
  std::vector<double> a = {0.00, 0.02, -0.01, 0.01, 0.03, -0.02, 0.01, 0.0, 0.02, -0.01};
  std::vector<double> b = {0.03, 0.01, 0.02, -0.35, 0.00, 0.04, 0.02, 0.01, 0.5, 0.02};
  const double delta = 0.01;
  auto base = without_outliers(a, b, 1, 6, delta);
  for (std::size_t u = 0; u < a.size(); ++u) {
    auto sa = a, sb = b;  // under "centre = delta": a <-> b - delta
    sa[u] = b[u] - delta;
    sb[u] = a[u] + delta;
    auto swapped = without_outliers(sa, sb, 1, 6, delta);
    REQUIRE(swapped.size() == base.size());
    double moved = 0;
    for (std::size_t i = 0; i < base.size(); ++i)
      moved += std::fabs(std::fabs(swapped[i] - delta) - std::fabs(base[i] - delta));
    CHECK(moved < 1e-12);
  }
}

TEST_CASE("outlier units: a trial 40% slow in one unit does not hide a clear gain") {
  // +5% on 1% noise, 20 units, two candidate trials 40% slow: each gives its unit the
  // largest contrast, with the wrong sign.
  Config c;
  c.min_effect = 0.01;
  c.min_trials = c.max_trials = 20;
  auto a = trials(100, 20, 7), b = trials(105, 20, 8);
  b[3] *= 0.6;
  b[11] *= 0.6;
  // Both slow trials in the candidate: a mean of 1.05 x (1 - 2 x 0.4 / 20), +0.8%, less
  // than min_effect. The signed-rank test alone keeps it; the mean test does not.
  Decision stalls = must_decide(c, a, b);
  CHECK(stalls.stats.p <= stalls.stats.alpha_look);
  CHECK(stalls.stats.mean_effect == doctest::Approx(0.008).epsilon(0.05));
  CHECK(stalls.verdict == Verdict::inconclusive);
  // One slow trial in each arm: the kind of outlier the rule is for.
  b[11] /= 0.6;
  a[11] *= 0.6;
  Decision with = must_decide(c, a, b);
  CHECK(with.stats.outliers == 2);
  CHECK(with.stats.p <= with.stats.alpha_look);  // the signed-rank test keeps
  CHECK(with.stats.ci_low > 0.01);               // its interval agrees
  // The mean test counts both slow trials (every unit in, the default): at 20 units
  // their spread hides +5% from it (README.md, "Stalls: what no rule can do"). The
  // balanced rule before it paired them out and kept.
  CHECK(with.verdict == Verdict::inconclusive);
  Config paired = c;
  paired.mean_outliers = MeanOutliers::balanced;
  CHECK(must_decide(paired, a, b).verdict == Verdict::keep);
  c.outlier_k = 0;
  Decision without = must_decide(c, a, b);
  CHECK(without.stats.outliers == 0);
  CHECK(with.stats.p < without.stats.p);
}

namespace {

// 40 trials per arm on 1% noise: the baseline around 100, the candidate around
// 100 (1 + typical) with every `every`-th of its trials `slow` slower (a stall the
// candidate causes: busy polling, coalescing, compaction).
std::vector<double> stalled(double typical, unsigned every, double slow, unsigned seed,
                            Direction direction = Direction::higher) {
  std::vector<double> b = trials(100 * (1 + typical), 40, seed);
  for (std::size_t i = 2; i < b.size(); i += every)
    b[i] *= direction == Direction::higher ? 1 - slow : 1 + slow;
  return b;
}

}  // namespace

TEST_CASE("stalls: +5% typical, one trial in five 30% slow, is rolled back (kept before)") {
  // The issue-40 case: the mean is 1.05 x (0.8 + 0.2 x 0.7) = 0.987, 1.3% worse.
  Config c;
  auto a = trials(100, 40, 21), b = stalled(0.05, 5, 0.3, 22);
  Config median_only = c;
  median_only.mean_test = false;
  Decision before = run_loop(median_only, a, b);
  CHECK(before.verdict == Verdict::keep);  // the stall units left out as outliers
  CHECK(before.stats.outliers > 0);
  Decision now = run_loop(c, a, b);
  CHECK(now.verdict != Verdict::keep);
  CHECK(now.stats.trials == 40);   // the typical gain rules out no_gain: to the end
  CHECK(now.stats.effect > 0.04);  // typical: still +5%
  CHECK(now.stats.mean_effect == doctest::Approx(-0.013).epsilon(0.3));
  CHECK(now.stats.p_mean > 0.5);
  CHECK(now.stats.mean_left_out == 0);  // every stall unit counts in the mean
  // A gain that pays for its stalls in the mean (+30% typical, the stalled trials 9%
  // slower than the baseline: mean +22%) is kept.
  CHECK(run_loop(c, a, stalled(0.30, 5, 0.3, 22)).verdict == Verdict::keep);
}

TEST_CASE("stalls: lower is better, latency 30% longer in one trial in five") {
  Config c;
  c.direction = Direction::lower;
  auto a = trials(100, 40, 31), b = stalled(-0.05, 5, 0.3, 32, Direction::lower);
  Config median_only = c;
  median_only.mean_test = false;
  CHECK(run_loop(median_only, a, b).verdict == Verdict::keep);
  Decision now = run_loop(c, a, b);
  CHECK(now.verdict != Verdict::keep);
  // 0.95 x (0.8 + 0.2 x 1.3) = 1.007: 0.7% more latency in the mean.
  CHECK(now.stats.mean_effect == doctest::Approx(-0.007).epsilon(0.5));
}

TEST_CASE("stalls: the balanced rule leaves slow trials of both arms alike out of the mean") {
  // +10% typical; one trial in ten 30% slow in either arm, as many in each: the units
  // favouring the candidate go, and as many against it.
  Config c;
  c.mean_outliers = MeanOutliers::balanced;
  auto a = trials(100, 40, 41), b = trials(110, 40, 42);
  for (std::size_t i : {3, 17, 29}) a[i] *= 0.7;
  for (std::size_t i : {8, 22, 35}) b[i] *= 0.7;
  Decision d = run_loop(c, a, b);
  CHECK(d.verdict == Verdict::keep);
  CHECK(d.stats.mean_left_out == 2 * (d.stats.trials > 30 ? 3 : d.stats.mean_left_out / 2));
  CHECK(d.stats.p_mean <= d.stats.alpha_look);
  // Without the baseline's slow trials the candidate's count in its mean.
  for (std::size_t i : {3, 17, 29}) a[i] /= 0.7;
  Decision one_sided = run_loop(c, a, b);
  CHECK(one_sided.stats.mean_left_out == 0);
}

TEST_CASE("stalls: a candidate that stalls more than a baseline that stalls is not kept") {
  // +5% typical; the baseline slow (30%) in 1 trial of 40, the candidate in 8: its
  // mean gains 1.05 x (1 - 0.3 x 8/40) / (1 - 0.3 x 1/40) - 1 = -0.6%. Every unit
  // counts in the mean (the default): the excess stalls weigh in full.
  Config c;
  auto a = trials(100, 40, 61), b = trials(105, 40, 62);
  a[13] *= 0.7;
  for (std::size_t i : {2, 7, 11, 16, 21, 27, 33, 39}) b[i] *= 0.7;
  Decision d = run_loop(c, a, b);
  CHECK(d.verdict != Verdict::keep);
  CHECK(d.stats.mean_left_out == 0);
  CHECK(d.stats.mean_effect < 0);
  CHECK(d.stats.effect > 0.03);
  // The typical trial gains: the signed-rank test alone keeps it.
  c.mean_test = false;
  CHECK(run_loop(c, a, b).verdict == Verdict::keep);
}

TEST_CASE("stalls: the mean test alone cannot keep, and swapping arms mirrors it") {
  // The mean gains, the typical trial does not: the signed-rank test still decides.
  Config c;
  auto a = trials(100, 40, 51), b = trials(100, 40, 52);
  b[5] *= 3;  // one wild trial lifts the candidate's mean by 5%
  Decision d = run_loop(c, a, b);
  CHECK(d.verdict != Verdict::keep);
  CHECK(d.stats.mean_effect > 0.04);
  // A clear gain with arms swapped is a clear loss in the mean as well.
  auto g = trials(110, 40, 53);
  Decision kept = run_loop(c, a, g), swapped = run_loop(c, g, a);
  CHECK(kept.verdict == Verdict::keep);
  CHECK(swapped.verdict == Verdict::harm);
  CHECK(swapped.stats.mean_effect < -0.08);
}
