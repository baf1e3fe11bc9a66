// A reduced run of `tuner_decision_sim --fleet`: small fleets, few replications, a fixed
// seed. It fails if the canaries' rule stops multiplying the canaries' error rates (a
// class kept on one canary's word keeps a useless change as often as one node does), if
// a real class gain is no longer kept, or if the rest of a class stops following its
// class decision.
#include "tuner/verify/sim_fleet.h"

#include <doctest/doctest.h>

using namespace tuner::verify;

namespace {

FleetOptions small(unsigned nodes, unsigned reps) {
  FleetOptions o;
  o.reps = reps;
  o.seed = 7;
  o.nodes = nodes;
  o.effect_sd = 0;  // every node of a class at the class's effect: the bound is tight
  return o;
}

}  // namespace

TEST_CASE("fleet simulation: a class at min_effect: canaries agree far less often than nodes") {
  FleetOptions o = small(20, 60);
  double m = o.config.min_effect;
  FleetResult r = simulate_fleet({"boundary", {m}}, o, 1);
  unsigned node_keeps = 0, class_keeps = 0;
  for (std::size_t k = 0; k < o.classes; ++k) {
    node_keeps += r.at(FleetRule::per_node, k).keeps;
    class_keeps += r.at(FleetRule::canaries_agree, k).keeps;
  }
  // 4800 node decisions at a 1% bound: a few dozen keeps; 240 class decisions at
  // about 1% squared: none.
  CHECK(node_keeps >= 10);
  CHECK(node_keeps <= 100);
  CHECK(class_keeps <= 1);
  CHECK(r.useless_nodes(FleetRule::canaries_agree) < r.useless_nodes(FleetRule::per_node));
  // Two canaries per class run benchmarks; the other 18 do not.
  CHECK(r.trials(FleetRule::canaries_agree) * 5 < r.trials(FleetRule::per_node));
}

TEST_CASE("fleet simulation: a +5% class is kept on every node, a harmful one nowhere") {
  FleetOptions o = small(10, 40);
  o.classes = 2;
  FleetResult r = simulate_fleet({"mixed", {0.05, -0.03}}, o, 2);
  const ClassTally& gain = r.at(FleetRule::canaries_agree, 0);
  // One node keeps about 0.91 (the keep needs the mean too since issue 40), two agree
  // about 0.83; 40 replications: +-0.06.
  CHECK(gain.keep_rate() >= 0.75);
  // The class decision carries to all 10 nodes: 8 that ran nothing and both canaries.
  CHECK(gain.carrying >= 0.75 * 10 * o.reps);
  CHECK(r.at(FleetRule::pooled, 0).keep_rate() >= 0.9);
  CHECK(r.at(FleetRule::per_node, 0).keep_rate() >= 0.9);
  for (FleetRule rule : {FleetRule::per_node, FleetRule::canaries_agree, FleetRule::pooled})
    CHECK(r.at(rule, 1).keeps == 0);
  CHECK(r.fleet_false_rate(FleetRule::canaries_agree) == 0);
}

TEST_CASE("fleet simulation: a bias the canaries share fools agreeing canaries, not the check") {
  // Issue 40: canaries that share a bias (sd 1%) the rest of the class lacks, nodes 1.5%
  // around a class at exactly min_effect. Agreement keeps such classes far more often
  // than the 1% bound; the class check (which assumes that bias) about 1%.
  FleetOptions o = small(2, 150);
  o.effect_sd = 0.015;
  o.canary_bias = 0.01;
  FleetResult r = simulate_fleet({"boundary", {o.config.min_effect}}, o, 3);
  unsigned agree = 0, checked = 0;
  for (std::size_t k = 0; k < o.classes; ++k) {
    agree += r.at(FleetRule::canaries_agree, k).keeps;
    checked += r.at(FleetRule::canaries_checked, k).keeps;
  }
  // 600 class decisions: agreement near 5% (about 30 keeps), the check near 1% (6).
  CHECK(agree >= 15);
  CHECK(checked * 3 <= agree);
  // The check only ever removes keeps.
  for (std::size_t k = 0; k < o.classes; ++k)
    CHECK(r.at(FleetRule::canaries_checked, k).keeps <= r.at(FleetRule::canaries_agree, k).keeps);
}
