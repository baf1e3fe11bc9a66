#include "tuner/verify/class_pool.h"

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "base/enum_names.h"
#include "tuner/verify/count_tests.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {

namespace {

constexpr std::array<EnumName<ClassCheck>, kClassChecks> kClassCheckNames = {{
    {ClassCheck::keep, "keep"},
    {ClassCheck::heterogeneous, "heterogeneous"},
    {ClassCheck::no_margin, "no_margin"},
    {ClassCheck::no_interval, "no_interval"},
}};
static_assert(in_enum_order(kClassCheckNames));

// The scale decide() tests on (decision.cc EffectScale): a ratio's log, so that an
// interval is symmetric about its estimate; a difference as it is.
double shift_of(const CanaryEffect& c, double effect) {
  if (c.scale == Scale::difference) return effect;
  return c.lower_is_better ? -std::log1p(-effect) : std::log1p(effect);
}
double effect_of(const CanaryEffect& c, double shift) {
  if (c.scale == Scale::difference) return shift;
  return c.lower_is_better ? -std::expm1(-shift) : std::expm1(shift);
}

// Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x): count_tests.h has P as the
// Poisson tail continued to real counts.
double gamma_upper(double a, double x) { return 1.0 - poisson_upper_tail(a, x); }

}  // namespace

std::string_view class_check_name(ClassCheck c) { return enum_name(kClassCheckNames, c); }

double chi_squared_upper(double x, unsigned df) {
  if (df == 0 || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  return gamma_upper(df / 2.0, x / 2);
}

ClassCheckResult check_class(std::span<const CanaryEffect> canaries, const ClassCheckConfig& c) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ClassCheckResult r;
  r.effect = r.low = r.se = r.se_canaries = r.se_spread = nan;
  if (canaries.empty()) return r;
  const auto k = static_cast<double>(canaries.size());
  std::vector<double> shift, se;
  for (const CanaryEffect& e : canaries) {
    if (!std::isfinite(e.effect) || !std::isfinite(e.ci_low) || !(e.ci_low < e.effect) ||
        !(e.ci_level > 0 && e.ci_level < 1))
      return r;
    double s = shift_of(e, e.effect), low = shift_of(e, e.ci_low);
    double z = normal_quantile((1 + e.ci_level) / 2);
    if (!std::isfinite(s) || !std::isfinite(low) || !(z > 0)) return r;
    shift.push_back(s);
    se.push_back((s - low) / z);
  }
  // Heterogeneity: Cochran's Q, each canary weighted by its own variance plus the
  // spread of nodes around the class, chi-squared with k - 1 degrees of freedom when
  // the canaries differ only by noise and that spread.
  const double tau2 = c.node_spread * c.node_spread;
  double wsum = 0, wmean = 0;
  for (std::size_t i = 0; i < shift.size(); ++i) {
    double w = 1 / (se[i] * se[i] + tau2);
    wsum += w;
    wmean += w * shift[i];
  }
  wmean /= wsum;
  for (std::size_t i = 0; i < shift.size(); ++i)
    r.q += (shift[i] - wmean) * (shift[i] - wmean) / (se[i] * se[i] + tau2);
  r.df = static_cast<unsigned>(shift.size() - 1);
  r.q_p = r.df ? chi_squared_upper(r.q, r.df) : 1;
  // The pooled effect: the canaries' plain mean (each canary stands for nodes of the
  // class alike), its variance their own over k^2, plus the spread's over k, plus the
  // bias they all share.
  double mean = 0, var = 0;
  for (std::size_t i = 0; i < shift.size(); ++i) {
    mean += shift[i] / k;
    var += se[i] * se[i] / (k * k);
  }
  const CanaryEffect& first = canaries.front();
  r.se_canaries = std::sqrt(var);
  r.se_spread = std::sqrt(tau2 / k + c.canary_bias * c.canary_bias);
  r.se = std::sqrt(var + r.se_spread * r.se_spread);
  double low = mean - normal_quantile(1 - c.false_keep_rate) * r.se;
  r.effect = effect_of(first, mean);
  r.low = effect_of(first, low);
  const double threshold = shift_of(first, c.min_effect);
  r.differ = r.df && r.q_p < c.heterogeneity_level;
  if (!r.differ) {
    r.verdict = low > threshold ? ClassCheck::keep : ClassCheck::no_margin;
    return r;
  }
  // Sizes that differ decide nothing when even the smallest canary, alone, clears
  // min_effect with the whole margin (a 10x gain on one node, 12x on the other); else a
  // third canary must say which size the class has.
  std::size_t least = 0;
  for (std::size_t i = 1; i < shift.size(); ++i)
    if (shift[i] < shift[least]) least = i;
  double alone = shift[least] -
                 normal_quantile(1 - c.false_keep_rate) *
                     std::sqrt(se[least] * se[least] + tau2 + c.canary_bias * c.canary_bias);
  r.verdict = alone > threshold ? ClassCheck::keep : ClassCheck::heterogeneous;
  if (r.verdict == ClassCheck::keep) r.low = effect_of(first, std::min(low, alone));
  return r;
}

}  // namespace tuner::verify
