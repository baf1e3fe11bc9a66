// A simulated fleet (issue 25): hardware classes of nodes, each class with a true effect
// of one group of changes, each node with its own baseline level and its own deviation
// from the class's effect. It compares three ways to decide for the whole fleet: every
// node verifies itself; two canaries per class verify and the class keeps what they all
// kept (the merge rule of `tuner report --decisions-out`); the canaries' trials pooled
// into one sequential test. decision_sim.cc prints the tables (--fleet); sim_fleet_test.cc
// asserts the targets.
//
// Every node's run is one run of the loop as sim.h simulates it (sim_noise.h's machine,
// randomised units, washes) and is decided by decide() itself; the canaries are the
// first nodes of their class, so all three rules see the same canary runs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/verify/class_pool.h"
#include "tuner/verify/sim.h"

namespace tuner::verify {

enum class FleetRule {
  per_node,        ///< every node verifies itself and keeps what it kept
  canaries_agree,  ///< the class keeps when every canary (at least 2) kept
  pooled,          ///< one sequential test on the canaries' units together
  /// every canary kept, and the class check passed (class_pool.h: compatible effects,
  /// the pooled bound clears min_effect by the spread and shared-bias margin)
  canaries_checked,
};
inline constexpr std::size_t kFleetRules = 4;

/// "per-node", "canaries agree", "pooled", "canaries checked".
std::string_view fleet_rule_name(FleetRule r);

/// The true class effects of a scenario; class i gets effects[i % size].
struct FleetScenario {
  std::string name;
  std::vector<double> effects;
};

/// mixed: 0, +5%, -3%, +2% (null, a real gain, harm, exactly the shipped min_effect);
/// null: every class 0; boundary: every class at min_effect, where the bound is tight.
std::vector<FleetScenario> fleet_scenarios(const Config& config);

struct FleetOptions {
  unsigned reps = 2000;
  std::uint64_t seed = 1;
  unsigned classes = 4;
  unsigned nodes = 250;  ///< per class, canaries included
  unsigned canaries = 2;
  Config config = shipped_config();     ///< one group's share of the shipped defaults
  Scenario noise{Noise::normal, 0.03};  ///< per-trial noise (its effect is unused)
  double level_sd = 0.10;               ///< log sd of a node's baseline level: nodes differ by ~10%
  double effect_sd = 0.01;              ///< sd of a node's true effect around its class's
  /// sd of a bias the canaries of a class share and its other nodes do not (drawn per
  /// class and replication, added to every canary's true effect).
  double canary_bias = 0;
  /// The class check of the canaries-checked rule (min_effect and false_keep_rate are
  /// taken from `config`).
  ClassCheckConfig check;
};

/// One class under one rule, summed over replications.
struct ClassTally {
  unsigned keeps = 0;          ///< the class decision kept (per-node: nodes that kept)
  unsigned decisions = 0;      ///< replications (per-node: node decisions)
  unsigned disagree = 0;       ///< canaries agree: some kept, some did not
  unsigned heterogeneous = 0;  ///< canaries checked: all kept, effects incompatible
  double carrying = 0;         ///< nodes carrying the change afterwards
  double useless = 0;          ///< of them, nodes whose own true gain is <= min_effect
  double trials = 0;           ///< benchmark runs, both arms
  double keep_rate() const { return decisions ? static_cast<double>(keeps) / decisions : 0; }
};

struct FleetResult {
  FleetScenario scenario;
  FleetOptions options;
  std::vector<double> effects;  ///< per class
  /// [rule][class]
  std::array<std::vector<ClassTally>, kFleetRules> classes;
  /// Replications that left some node carrying a change whose own true gain is
  /// <= min_effect, per rule.
  std::array<unsigned, kFleetRules> fleet_false = {};

  const ClassTally& at(FleetRule r, std::size_t c) const {
    return classes[static_cast<std::size_t>(r)][c];
  }
  /// Per replication, the whole fleet: nodes carrying a change with own gain <= min_effect,
  /// benchmark runs.
  double useless_nodes(FleetRule r) const;
  double trials(FleetRule r) const;
  /// Of the classes whose true effect lies in [low, high], how often the class decision
  /// kept (per-node: how often a node kept): the false-keep rate per class for
  /// (-inf, min_effect], the power for [power_effect, inf).
  double keep_rate(FleetRule r, double low, double high) const;
  double fleet_false_rate(FleetRule r) const {
    return options.reps
               ? static_cast<double>(fleet_false[static_cast<std::size_t>(r)]) / options.reps
               : 0;
  }
};

/// Runs `options.reps` fleets of the scenario. Deterministic for (seed, index, rep).
FleetResult simulate_fleet(const FleetScenario& scenario, const FleetOptions& options,
                           std::uint64_t index);

/// The targets README.md "Fleet decisions" documents, checked on results: what missed
/// them, in words (empty: all met).
std::vector<std::string> fleet_targets_missed(const std::vector<FleetResult>& results);

}  // namespace tuner::verify
