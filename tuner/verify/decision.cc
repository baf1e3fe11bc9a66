#include "tuner/verify/decision.h"

#include "base/enum_names.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string>

#include "tuner/verify/calibration.h"
#include "tuner/verify/sign_flip.h"
#include "tuner/verify/signed_rank.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Error config_error(const std::string& what) { return Error::invalid(what, "verify config"); }

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Maps relative effects to shifts of the values the tests compare ("scores"), and back.
// Scores are oriented so that larger is better whatever the metric's direction.
class EffectScale {
 public:
  EffectScale(Scale scale, Direction direction, double baseline_median)
      : scale_(scale),
        sign_(direction == Direction::higher ? 1 : -1),
        magnitude_(std::fabs(baseline_median)) {}

  double score(double value) const {
    return scale_ == Scale::ratio ? sign_ * std::log(value) : sign_ * value;
  }
  // Higher is better: candidate = (1 + r) baseline, shift ln(1 + r).
  // Lower is better: candidate = (1 - r) baseline, shift -ln(1 - r).
  double shift_of(double effect) const {
    if (scale_ == Scale::difference) return effect * magnitude_;
    return sign_ > 0 ? std::log1p(effect) : -std::log1p(-effect);
  }
  double effect_of(double shift) const {
    if (scale_ == Scale::difference) return shift / magnitude_;
    return sign_ > 0 ? std::expm1(shift) : -std::expm1(-shift);
  }
  // A raw value whose score is moved back by `shift`: the candidate under the null
  // "the candidate is the baseline moved by shift" has the baseline's law once moved.
  double moved_back(double value, double shift) const {
    return scale_ == Scale::ratio ? value * std::exp(-sign_ * shift) : value - sign_ * shift;
  }
  double sign() const { return sign_; }
  // The relative gain of the candidate's arithmetic mean over the baseline's.
  double mean_effect(double mean_a, double mean_b) const {
    if (scale_ == Scale::difference) return sign_ * (mean_b - mean_a) / magnitude_;
    return sign_ > 0 ? mean_b / mean_a - 1 : 1 - mean_b / mean_a;
  }

 private:
  Scale scale_;
  double sign_;
  double magnitude_;
};

bool in_open(double v, double lo, double hi) { return v > lo && v < hi; }

// The units the mean test leaves out (README.md, "Stalls: the mean too"): of the units
// the signed-rank test at `shift` leaves out, every one whose contrast favours the
// candidate (leaving it out can only lower the mean), and of those against it only as
// many, the farthest first: an excess of slow candidate trials stays in the mean.
std::vector<bool> mean_left_out(std::span<const double> sa, std::span<const double> sb,
                                unsigned unit, double k, double shift) {
  std::vector<bool> out = outlier_units(sa, sb, unit, k, shift);
  std::vector<std::pair<double, std::size_t>> against;
  std::size_t favour = 0;
  for (std::size_t u = 0; u < out.size(); ++u) {
    if (!out[u]) continue;
    double c = -shift;
    for (std::size_t i = u * unit; i < (u + 1) * unit; ++i) c += (sb[i] - sa[i]) / unit;
    if (c > 0) ++favour;
    else against.emplace_back(c, u);
  }
  std::sort(against.begin(), against.end());  // most negative first
  for (std::size_t j = favour; j < against.size(); ++j) out[against[j].second] = false;
  return out;
}

// One-sided p of "the candidate's mean gain <= the gain `shift` stands for": the
// sign-flip test of the units' contrasts of raw values (the candidate's moved back by
// shift), those not left out.
double mean_p(std::span<const double> a, std::span<const double> b, unsigned unit,
              const EffectScale& scale, double shift, const std::vector<bool>& left_out) {
  std::vector<double> d;
  d.reserve(left_out.size());
  for (std::size_t u = 0; u < left_out.size(); ++u) {
    if (left_out[u]) continue;
    double c = 0;
    for (std::size_t i = u * unit; i < (u + 1) * unit; ++i)
      c += scale.sign() * (scale.moved_back(b[i], shift) - a[i]) / unit;
    d.push_back(c);
  }
  return sign_flip_upper(d);
}

// The power at max_units, and the trials per arm for 80%, of a one-sample test that
// finds a mean shift of `shift` in `contrasts` at one-sided level alpha_look: the normal
// approximation with their spread so far, `efficiency` of the t test's. False when the
// spread is not known yet.
bool normal_power(const std::vector<double>& contrasts, double shift, double alpha_look,
                  unsigned max_units, unsigned unit, double efficiency, double& power,
                  unsigned& needed) {
  std::size_t units = contrasts.size();
  if (units < 3 || !(shift > 0)) return false;
  double mean = 0, ss = 0;
  for (double c : contrasts) mean += c / static_cast<double>(units);
  for (double c : contrasts) ss += (c - mean) * (c - mean);
  double sd = std::sqrt(ss / static_cast<double>(units - 1));
  if (!(sd > 0)) return false;
  double z_alpha = normal_quantile(1 - std::clamp(alpha_look, 1e-9, 0.5));
  double z_power = normal_quantile(0.8);
  power = normal_upper(z_alpha - shift / sd * std::sqrt(efficiency * max_units));
  double need = std::pow((z_alpha + z_power) * sd / shift, 2) / efficiency;
  needed = static_cast<unsigned>(std::min(1e6, std::ceil(need))) * unit;
  return true;
}

// Will a gain of power_effect be kept by max_trials at this noise? The signed-rank test
// (efficiency 3/pi of the t test at normal noise) on the contrasts it keeps, at the last
// look's threshold: rough, but it warns before the budget is spent, not after.
void precheck(Stats& st, const std::vector<double>& contrasts, double shift, double alpha_look,
              unsigned max_units, unsigned unit) {
  normal_power(contrasts, shift, alpha_look, max_units, unit, 3 / std::numbers::pi, st.power_at_max,
               st.trials_needed);
}

// The same for the mean test (a t test on the relative raw contrasts, every unit in):
// outliers that the signed-rank test leaves out still widen the mean's spread, and a
// keep needs both. The smaller power and the larger need win.
void precheck_mean(Stats& st, std::span<const double> a, std::span<const double> b, unsigned unit,
                   double gain, double alpha_look, unsigned max_units) {
  unsigned units = static_cast<unsigned>(std::min(a.size(), b.size()) / unit);
  if (units < 3 || !std::isfinite(st.power_at_max)) return;
  const std::size_t trials = std::size_t{units} * unit;
  double base = 0;
  for (std::size_t i = 0; i < trials; ++i) base += a[i] / static_cast<double>(trials);
  if (base == 0) return;
  std::vector<double> d;
  for (std::size_t u = 0; u < units; ++u) {
    double c = 0;
    for (std::size_t i = u * unit; i < (u + 1) * unit; ++i) c += (b[i] - a[i]) / unit;
    d.push_back(c / std::fabs(base));
  }
  double power = 0;
  unsigned needed = 0;
  if (!normal_power(d, gain, alpha_look, max_units, unit, 1, power, needed)) return;
  st.power_at_max = std::min(st.power_at_max, power);
  st.trials_needed = std::max(st.trials_needed, needed);
}

}  // namespace

Status validate(const Config& c) {
  // A negative min_effect is a non-inferiority margin (a watching benchmark: "it loses
  // less than this"); profiles can only set [0, 1).
  if (!(c.min_effect > -1 && c.min_effect < 1))
    return config_error("min_effect = " + number(c.min_effect) +
                        " is out of range: it must be in (-1, 1)");
  double pe = power_effect(c);
  if (!(pe >= 0 && pe < 1))
    return config_error("power_effect = " + number(pe) + " is out of range: it must be in [0, 1)");
  if (!in_open(c.false_keep_rate, 0, 0.5))
    return config_error("false_keep_rate = " + number(c.false_keep_rate) +
                        " is out of range: it must be in (0, 0.5)");
  if (!in_open(c.miss_rate, 0, 0.5))
    return config_error("miss_rate = " + number(c.miss_rate) +
                        " is out of range: it must be in (0, 0.5)");
  if (c.min_trials < 5 || c.min_trials > c.max_trials || c.max_trials > 1000)
    return config_error("trials per arm: min_trials = " + std::to_string(c.min_trials) +
                        ", max_trials = " + std::to_string(c.max_trials) +
                        ": they must satisfy 5 <= min_trials <= max_trials <= 1000");
  if (c.look_every < 1) return config_error("look_every must be at least 1");
  if (c.unit < 1 || c.min_trials < c.unit || c.look_every < c.unit)
    return config_error("unit = " + std::to_string(c.unit) +
                        " trials per arm: it must be at least 1 and at most min_trials and "
                        "look_every");
  return Ok{};
}

std::vector<bool> outlier_units(std::span<const double> a, std::span<const double> b, unsigned unit,
                                double k, double delta) {
  std::size_t units = unit ? std::min(a.size(), b.size()) / unit : 0;
  std::vector<bool> out(units, false);
  std::size_t cap = units / 4;
  if (k <= 0 || cap == 0) return out;
  // The pool: every trial of both arms, the candidate's moved back by delta. Swapping a
  // unit's arms changes neither the pool nor the unit's own trials.
  std::vector<double> pool;
  pool.reserve(2 * units * unit);
  for (std::size_t i = 0; i < units * unit; ++i) {
    pool.push_back(a[i]);
    pool.push_back(b[i] - delta);
  }
  double centre = median(pool);
  std::vector<double> spread;
  spread.reserve(pool.size());
  for (double v : pool) spread.push_back(std::fabs(v - centre));
  double mad = median(spread);
  if (!(mad > 0)) return out;  // ties everywhere: no scale to measure against
  std::vector<double> dev(units, 0);
  for (std::size_t u = 0; u < units; ++u)
    for (std::size_t i = u * unit; i < (u + 1) * unit; ++i)
      dev[u] = std::max({dev[u], std::fabs(a[i] - centre), std::fabs(b[i] - delta - centre)});
  std::vector<double> sorted = dev;
  std::sort(sorted.begin(), sorted.end());
  // Past the cap, the farthest go first: the limit rises to the cap-th largest distance
  // (a unit at exactly that distance stays: a tie never depends on a swap).
  double limit = std::max(k * mad, sorted[units - cap - 1]);
  for (std::size_t u = 0; u < units; ++u) out[u] = dev[u] > limit;
  return out;
}

std::vector<double> without_outliers(std::span<const double> a, std::span<const double> b,
                                     unsigned unit, double k, double delta) {
  std::vector<bool> out = outlier_units(a, b, unit, k, delta);
  std::vector<double> kept;
  kept.reserve(out.size());
  for (std::size_t u = 0; u < out.size(); ++u) {
    if (out[u]) continue;
    double sum = 0;
    for (std::size_t i = u * unit; i < (u + 1) * unit; ++i) sum += b[i] - a[i];
    kept.push_back(sum / unit);
  }
  return kept;
}

double power_effect(const Config& c) {
  return c.power_effect ? *c.power_effect : std::max(0.05, 2 * c.min_effect);
}

double futility_rate(const Config& c) { return c.miss_rate / 2; }

std::vector<unsigned> look_points(const Config& c) {
  std::vector<unsigned> points;
  for (unsigned n = c.min_trials; n < c.max_trials; n += std::max(1u, c.look_every))
    points.push_back(n);
  points.push_back(c.max_trials);
  return points;
}

unsigned next_look(const Config& c, unsigned trials) {
  for (unsigned n : look_points(c))
    if (n > trials) return n;
  return 0;
}

namespace {

constexpr std::array<EnumName<Verdict>, 5> kVerdicts = {{
    {Verdict::keep, "keep"},
    {Verdict::no_gain, "no_gain"},
    {Verdict::harm, "harm"},
    {Verdict::inconclusive, "inconclusive"},
    {Verdict::more_trials, "continue"},
}};
static_assert(in_enum_order(kVerdicts));

constexpr std::array<EnumName<Scale>, 2> kScales = {{
    {Scale::ratio, "ratio"},
    {Scale::difference, "difference"},
}};
static_assert(in_enum_order(kScales));

}  // namespace

std::string_view verdict_name(Verdict v) { return enum_name(kVerdicts, v); }
std::optional<Verdict> parse_verdict(std::string_view name) {
  return enum_from_name(kVerdicts, name);
}

std::string_view scale_name(Scale s) { return enum_name(kScales, s); }
std::optional<Scale> parse_scale(std::string_view name) { return enum_from_name(kScales, name); }

Result<Decision> decide(const Config& config, std::span<const double> baseline,
                        std::span<const double> candidate) {
  if (Status s = validate(config); !s) return s.error();
  for (auto [arm, values] : {std::pair{"baseline", baseline}, std::pair{"candidate", candidate}})
    for (std::size_t i = 0; i < values.size(); ++i)
      if (!std::isfinite(values[i]))
        return Error::io(
            std::string(arm) + " trial " + std::to_string(i + 1) + " is not a finite number",
            "verify");

  Decision d;
  std::vector<unsigned> points = look_points(config);
  d.stats.looks = static_cast<unsigned>(points.size());
  d.stats.baseline_median = median(baseline);
  d.stats.candidate_median = median(candidate);
  auto have = static_cast<unsigned>(std::min(baseline.size(), candidate.size()));
  auto reached = std::upper_bound(points.begin(), points.end(), have);
  if (reached == points.begin()) {  // before the first look: nothing to test yet
    d.stats.effect = d.stats.ci_low = d.stats.ci_high = d.stats.mean_effect = kNaN;
    return d;
  }
  auto k = static_cast<std::size_t>(reached - points.begin()) - 1;  // 0-based look
  unsigned n = points[k];
  auto a = baseline.first(n), b = candidate.first(n);

  Stats& st = d.stats;
  st.trials = n;
  st.look = static_cast<unsigned>(k + 1);
  st.baseline_median = median(a);
  st.candidate_median = median(b);
  st.scale = std::all_of(a.begin(), a.end(), [](double v) { return v > 0; }) &&
                     std::all_of(b.begin(), b.end(), [](double v) { return v > 0; })
                 ? Scale::ratio
                 : Scale::difference;
  if (st.scale == Scale::difference && st.baseline_median == 0)
    return Error::io("the metric has values <= 0 and a baseline median of 0: "
                     "a relative effect is undefined",
                     "verify");
  EffectScale scale(st.scale, config.direction, st.baseline_median);
  // One contrast per randomised unit: the candidate's mean score less the baseline's.
  // Each test leaves out the units with a trial far from the rest (Config::outlier_k),
  // measured with the candidate moved back by that test's own null: its p-value, and
  // the side of the interval that agrees with it, come from the rest.
  std::vector<double> sa, sb;
  for (double v : a) sa.push_back(scale.score(v));
  for (double v : b) sb.push_back(scale.score(v));
  unsigned units = n / config.unit;
  const double keep_at = scale.shift_of(config.min_effect);
  const double futile_at = scale.shift_of(power_effect(config));
  std::vector<double> kept_k = without_outliers(sa, sb, config.unit, config.outlier_k, keep_at);
  std::vector<bool> mean_out(units, false);
  if (config.mean_outliers == MeanOutliers::balanced)
    mean_out = mean_left_out(sa, sb, config.unit, config.outlier_k, keep_at);
  SignedRankShift keep(kept_k);
  SignedRankShift futile(without_outliers(sa, sb, config.unit, config.outlier_k, futile_at));
  SignedRankShift harm(without_outliers(sa, sb, config.unit, config.outlier_k, 0));
  std::vector<unsigned> unit_points;
  unit_points.reserve(points.size());
  for (unsigned p : points) unit_points.push_back(p / config.unit);

  // Error spending: thresholds calibrated on the joint law of the looks where it is
  // known (tie-free data), else each look gets its increment (union bound).
  double alpha = config.false_keep_rate, beta = futility_rate(config);
  st.units = units;
  st.outliers = static_cast<unsigned>(units - kept_k.size());
  bool ties = keep.has_ties() || futile.has_ties() || harm.has_ties();
  st.calibrated = config.calibrate && !ties && unit_points.back() <= kCalibratedMaxUnits &&
                  points.size() <= kCalibratedMaxLooks;
  auto thresholds = [&](Spending s, double total) {
    return st.calibrated ? calibrated_thresholds(unit_points, s, total).p
                         : union_thresholds(unit_points, s, total).p;
  };
  auto threshold = [&](Spending s, double total) { return thresholds(s, total)[k]; };
  st.alpha_look = threshold(config.keep_spending, alpha);
  st.beta_look = threshold(config.futility_spending, beta);
  st.alpha_spent = spent(config.keep_spending, alpha, static_cast<double>(n) / config.max_trials);

  st.p = keep.p_above(keep_at);
  st.p_futility = futile.p_below(futile_at);
  double p_harm = harm.p_below(0);
  st.effect = scale.effect_of(keep.estimate());
  st.mean_effect = scale.mean_effect(mean(a), mean(b));
  st.p_mean = mean_p(a, b, config.unit, scale, keep_at, mean_out);
  st.mean_left_out = static_cast<unsigned>(std::count(mean_out.begin(), mean_out.end(), true));
  // Each side of the interval at least as wide as this look's thresholds, so that keep
  // implies ci_low > min_effect and no_gain implies ci_high < power_effect.
  st.ci_level = std::min(0.95, 1 - 2 * std::max({alpha, beta, st.alpha_look, st.beta_look}));
  double tail = (1 - st.ci_level) / 2;
  st.ci_low = scale.effect_of(keep.lower_bound(tail));
  st.ci_high = scale.effect_of(futile.upper_bound(tail));
  precheck(st, kept_k, futile_at, thresholds(config.keep_spending, alpha).back(),
           unit_points.back(), config.unit);
  if (config.mean_test)
    precheck_mean(st, a, b, config.unit, power_effect(config) - config.min_effect,
                  thresholds(config.keep_spending, alpha).back(), unit_points.back());

  // Keep needs both (an intersection-union test: each at the look's threshold, no
  // share of the rate spent on the second): the typical trial gains more than
  // min_effect, and so does the mean.
  bool mean_shown = !config.mean_test ||
                    (st.p_mean <= st.alpha_look && units >= config.mean_min_units);
  if (st.p <= st.alpha_look && mean_shown) d.verdict = Verdict::keep;
  else if (p_harm <= st.beta_look) d.verdict = Verdict::harm;
  else if (st.p_futility <= st.beta_look) d.verdict = Verdict::no_gain;
  else if (k + 1 == points.size()) d.verdict = Verdict::inconclusive;
  return d;
}

}  // namespace tuner::verify
