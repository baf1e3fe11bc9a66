// The class check of a fleet's kept group (docs/fleet-decisions.md "Merging", issue 40):
// canaries that all kept a group must agree for the same reason before the rest of the
// class reuses it. Their effects must be compatible (a heterogeneity test: Cochran's Q
// with the node-to-node spread allowed), and the pooled effect's lower bound, widened by
// the spread of nodes around their class and by a bias the canaries may share, must
// clear min_effect. One implementation for `tuner report --decisions-out` and for the
// simulator (`tuner_decision_sim --fleet`, sim_fleet.h).
#pragma once

#include <span>
#include <string_view>

#include "tuner/verify/decision.h"

namespace tuner::verify {

/// One canary's kept gain as its run reported it (tuner.run/1 stats): the effect, the
/// lower end of its two-sided interval at ci_level, on the scale and direction of the
/// group's benchmark.
struct CanaryEffect {
  double effect = 0;
  double ci_low = 0;
  double ci_level = 0.95;
  Scale scale = Scale::ratio;
  bool lower_is_better = false;
};

/// What the class check assumes (docs/fleet-decisions.md "The class check").
struct ClassCheckConfig {
  double min_effect = 0.02;
  /// The one-sided error rate of the class's pooled bound.
  double false_keep_rate = 0.01;
  /// sd of a node's true effect around its class's (on the log scale, ~relative).
  double node_spread = 0.015;
  /// sd of a bias every canary of the class shares and the rest of the class does not
  /// (same rack, same peer, unrepresentative canaries).
  double canary_bias = 0.01;
  /// The heterogeneity test's level: below it the canaries' effects differ more than
  /// node spread explains.
  double heterogeneity_level = 0.05;
};

enum class ClassCheck {
  keep,           ///< compatible effects and the pooled bound clears min_effect
  heterogeneous,  ///< the effects differ more than the spread explains, and the
                  ///< smallest alone does not clear min_effect with the margin
  no_margin,      ///< compatible, but the pooled bound does not clear min_effect
  no_interval,    ///< some canary's record has no usable effect and interval
};
inline constexpr std::size_t kClassChecks = 4;

/// "keep", "heterogeneous", "no_margin", "no_interval".
std::string_view class_check_name(ClassCheck c);

struct ClassCheckResult {
  ClassCheck verdict = ClassCheck::no_interval;
  /// The pooled effect (the canaries' mean, on the relative scale), and its lower bound
  /// at 1 - false_keep_rate one-sided with every variance below; NaN for no_interval.
  double effect = 0, low = 0;
  /// Standard errors on the test's scale: the canaries' own (from their intervals), the
  /// spread and bias term, and the total.
  double se_canaries = 0, se_spread = 0, se = 0;
  /// Cochran's Q over the canaries (weights 1 / (se_i^2 + node_spread^2)), its degrees
  /// of freedom (canaries - 1) and upper-tail p; p is 1 with one canary.
  double q = 0, q_p = 1;
  unsigned df = 0;
  /// Q's p is below heterogeneity_level. The verdict is then heterogeneous, unless the
  /// smallest canary alone clears min_effect with the whole margin
  /// (effect_min - z sqrt(se_min^2 + node_spread^2 + canary_bias^2)): then keep, and
  /// low is the smaller of the two bounds.
  bool differ = false;
};

/// Checks canaries that all kept a group. An empty span or a canary whose effect or
/// ci_low is not finite, or ci_low >= effect, or ci_level outside (0, 1): no_interval.
ClassCheckResult check_class(std::span<const CanaryEffect> canaries, const ClassCheckConfig& c);

/// P(X > x) for X chi-squared with df degrees of freedom (df >= 1).
double chi_squared_upper(double x, unsigned df);

}  // namespace tuner::verify
