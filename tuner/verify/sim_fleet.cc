#include "tuner/verify/sim_fleet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/enum_names.h"
#include "tuner/verify/sim_noise.h"

namespace tuner::verify {
namespace {

using sim::Draw;
using sim::Machine;
using sim::mix;

constexpr std::array<EnumName<FleetRule>, kFleetRules> kFleetRuleNames = {{
    {FleetRule::per_node, "per-node"},
    {FleetRule::canaries_agree, "canaries agree"},
    {FleetRule::pooled, "pooled"},
    {FleetRule::canaries_checked, "canaries checked"},
}};
static_assert(in_enum_order(kFleetRuleNames));

// One node's run to max_trials per arm, in run order, as the loop would see it: the
// machine of sim_noise.h times the node's own baseline level.
struct NodeRun {
  std::vector<double> a, b;
  double effect = 0;  // the node's own true gain
  bool kept = false;
  unsigned used = 0;  // trials per arm until the decision
  Stats stats;        // the deciding look's numbers
};

void run_node(const Scenario& s, const Config& c, std::uint64_t seed, double level, NodeRun& out) {
  Draw draw(seed);
  out.a.clear();
  out.b.clear();
  unsigned unit = unit_trials(s.design, kSimBlock);
  std::vector<Arm> order = trial_order(s.design, c.max_trials, mix(seed));
  Machine m = sim::start_machine(s, draw);
  for (std::size_t t = 0; t < order.size(); ++t) {
    bool flipped = t > 0 && order[t] != order[t - 1];
    bool candidate = order[t] == Arm::candidate;
    sim::before_trial(s, draw, m, t, flipped || wash_before(order, t, unit));
    double v = sim::trial_value(s, draw, m, t, candidate ? out.effect : 0, candidate);
    (candidate ? out.b : out.a).push_back(level * v);
  }
}

// The sequential decision as the loop takes it: look by look until a verdict.
bool decide_sequential(const Config& c, std::span<const double> a, std::span<const double> b,
                       unsigned& used, Stats* stats = nullptr) {
  Verdict v = Verdict::more_trials;
  for (unsigned n : look_points(c)) {
    auto d = decide(c, a.first(n), b.first(n));
    v = d ? d->verdict : Verdict::inconclusive;
    used = n;
    if (d && stats) *stats = d->stats;
    if (v != Verdict::more_trials) break;
  }
  return v == Verdict::keep;
}

// Canaries checked: every canary kept, and the class check (class_pool.h) on their
// reported effects and intervals passes, as `tuner report --decisions-out` merges.
bool decide_checked(const FleetOptions& o, const Config& c, const std::vector<NodeRun>& canaries,
                    bool& heterogeneous) {
  heterogeneous = false;
  if (canaries.size() < 2) return false;
  std::vector<CanaryEffect> effects;
  for (const NodeRun& r : canaries) {
    if (!r.kept) return false;
    effects.push_back({r.stats.effect, r.stats.ci_low, r.stats.ci_level, r.stats.scale,
                       c.direction == Direction::lower});
  }
  ClassCheckConfig check = o.check;
  check.min_effect = c.min_effect;
  check.false_keep_rate = c.false_keep_rate;
  ClassCheckResult res = check_class(effects, check);
  heterogeneous = res.verdict == ClassCheck::heterogeneous;
  return res.verdict == ClassCheck::keep;
}

// The canaries' runs as one: each canary's trials between two look points in turn, so
// the pooled look at k x p trials holds the first p of every canary. A unit's contrast
// stays within one canary, and each canary's coins are its own: under the null every
// contrast is still symmetric about the threshold, which is all the test assumes.
Config pooled_config(Config c, unsigned k) {
  c.min_trials *= k;
  c.look_every *= k;
  c.max_trials *= k;
  return c;
}

bool decide_pooled(const Config& c, const std::vector<NodeRun>& canaries, unsigned& used) {
  std::vector<double> a, b;
  unsigned from = 0;
  for (unsigned p : look_points(c)) {
    for (const NodeRun& r : canaries) {
      a.insert(a.end(), r.a.begin() + from, r.a.begin() + p);
      b.insert(b.end(), r.b.begin() + from, r.b.begin() + p);
    }
    from = p;
  }
  auto k = static_cast<unsigned>(canaries.size());
  bool kept = decide_sequential(pooled_config(c, k), a, b, used);
  used /= k;  // per canary
  return kept;
}

double total_useless(const std::vector<ClassTally>& classes) {
  double sum = 0;
  for (const ClassTally& t : classes) sum += t.useless;
  return sum;
}

void tally(ClassTally& t, bool kept, double carrying, double useless, double trials) {
  ++t.decisions;
  t.keeps += kept;
  t.carrying += carrying;
  t.useless += useless;
  t.trials += trials;
}

// Class decisions (replications x classes) whose class effect lies in [low, high].
double class_decisions(const FleetResult& r, double low, double high) {
  double n = 0;
  for (double e : r.effects) n += e >= low && e <= high ? r.options.reps : 0;
  return n;
}

}  // namespace

std::string_view fleet_rule_name(FleetRule r) { return enum_name(kFleetRuleNames, r); }

std::vector<FleetScenario> fleet_scenarios(const Config& config) {
  double m = config.min_effect;
  return {{"mixed", {0, 0.05, -0.03, m}}, {"null", {0}}, {"boundary", {m}}};
}

double FleetResult::useless_nodes(FleetRule r) const {
  return options.reps ? total_useless(classes[static_cast<std::size_t>(r)]) / options.reps : 0;
}

double FleetResult::trials(FleetRule r) const {
  double sum = 0;
  for (const ClassTally& t : classes[static_cast<std::size_t>(r)]) sum += t.trials;
  return options.reps ? sum / options.reps : 0;
}

double FleetResult::keep_rate(FleetRule r, double low, double high) const {
  unsigned keeps = 0, decisions = 0;
  for (std::size_t i = 0; i < effects.size(); ++i)
    if (effects[i] >= low && effects[i] <= high) {
      keeps += at(r, i).keeps;
      decisions += at(r, i).decisions;
    }
  return decisions ? static_cast<double>(keeps) / decisions : 0;
}

FleetResult simulate_fleet(const FleetScenario& scenario, const FleetOptions& o,
                           std::uint64_t index) {
  FleetResult r;
  r.scenario = scenario;
  r.options = o;
  for (auto& per_rule : r.classes) per_rule.assign(o.classes, {});
  Config c = config_for(o.config, o.noise.design);
  c.direction = o.noise.direction;
  const double eps = 1e-12;
  unsigned k = std::min(o.canaries, o.nodes);
  for (unsigned cl = 0; cl < o.classes; ++cl)
    r.effects.push_back(scenario.effects[cl % scenario.effects.size()]);
  std::vector<NodeRun> canaries(k);
  NodeRun node;
  for (unsigned rep = 0; rep < o.reps; ++rep) {
    std::uint64_t fleet_seed = mix(mix(mix(o.seed) ^ index) ^ rep);
    std::array<double, kFleetRules> before = {};
    for (std::size_t i = 0; i < kFleetRules; ++i) before[i] = total_useless(r.classes[i]);
    for (unsigned cl = 0; cl < o.classes; ++cl) {
      // The bias the class's canaries share (its own stream: the nodes' draws are as
      // without it).
      Draw shared(mix(fleet_seed ^ mix(0x62696173ULL + cl)));
      double bias = o.canary_bias > 0 ? o.canary_bias * shared.normal() : 0;
      unsigned useless = 0, rest_useless = 0;  // nodes whose own gain is <= min_effect
      ClassTally& per_node = r.classes[0][cl];
      for (unsigned i = 0; i < o.nodes; ++i) {
        std::uint64_t node_seed =
            mix(fleet_seed ^ mix(static_cast<std::uint64_t>(cl) * o.nodes + i));
        Draw offsets(mix(node_seed ^ 0x6e6f6465ULL));
        double level = std::exp(o.level_sd * offsets.normal());
        NodeRun& run = i < k ? canaries[i] : node;
        run.effect = r.effects[cl] + o.effect_sd * offsets.normal() + (i < k ? bias : 0);
        run_node(o.noise, c, node_seed, level, run);
        run.kept = decide_sequential(c, run.a, run.b, run.used, &run.stats);
        bool is_useless = run.effect <= c.min_effect + eps;
        useless += is_useless;
        rest_useless += is_useless && i >= k;
        tally(per_node, run.kept, run.kept, run.kept && is_useless, 2.0 * run.used);
      }
      // Canaries agree: the class keeps when at least 2 canaries kept and none did not;
      // a canary keeps its own verdict whatever the class decides.
      unsigned kept = 0, canary_useless = 0;
      double canary_trials = 0;
      for (const NodeRun& cr : canaries) {
        kept += cr.kept;
        canary_useless += cr.kept && cr.effect <= c.min_effect + eps;
        canary_trials += 2.0 * cr.used;
      }
      bool agree = k >= 2 && kept == k;
      ClassTally& ag = r.classes[1][cl];
      tally(ag, agree, kept + (agree ? o.nodes - k : 0),
            canary_useless + (agree ? rest_useless : 0), canary_trials);
      ag.disagree += kept > 0 && kept < k;
      // Pooled: one decision for the class, canaries included.
      unsigned used = 0;
      bool pooled = k >= 1 && decide_pooled(c, canaries, used);
      tally(r.classes[2][cl], pooled, pooled ? o.nodes : 0, pooled ? useless : 0, 2.0 * used * k);
      // Canaries checked: as agree, then the class check; the canaries keep their own.
      bool heterogeneous = false;
      bool checked = agree && decide_checked(o, c, canaries, heterogeneous);
      ClassTally& ch = r.classes[3][cl];
      tally(ch, checked, kept + (checked ? o.nodes - k : 0),
            canary_useless + (checked ? rest_useless : 0), canary_trials);
      ch.disagree += kept > 0 && kept < k;
      ch.heterogeneous += heterogeneous;
    }
    for (std::size_t i = 0; i < kFleetRules; ++i)
      r.fleet_false[i] += total_useless(r.classes[i]) > before[i];
  }
  return r;
}

std::vector<std::string> fleet_targets_missed(const std::vector<FleetResult>& results) {
  std::vector<std::string> missed;
  auto fail = [&](const FleetResult& r, FleetRule rule, const std::string& what, double rate) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s, %s: %s %.3f%%", r.scenario.name.c_str(),
                  std::string(fleet_rule_name(rule)).c_str(), what.c_str(), 100 * rate);
    missed.emplace_back(buf);
  };
  const double inf = std::numeric_limits<double>::infinity(), eps = 1e-12;
  for (const FleetResult& r : results) {
    const Config& c = r.options.config;
    const FleetOptions& o = r.options;
    double alpha = c.false_keep_rate, k = std::max(1u, o.canaries);
    // The canaries err independently: no shared bias, the spread the README's first
    // table assumes (the agree rule's own conditions).
    bool independent = o.canary_bias == 0 && o.effect_sd <= 0.01 + eps;
    // Within what the class check assumes.
    bool covered = o.canary_bias <= o.check.canary_bias + eps &&
                   o.effect_sd <= o.check.node_spread + eps;
    std::pair<double, double> null{-inf, c.min_effect + eps}, gain{power_effect(c) - eps, inf};
    if (double n = class_decisions(r, null.first, null.second); n > 0) {
      double margin = 3 * std::sqrt(alpha * (1 - alpha) / n);
      double agree = r.keep_rate(FleetRule::canaries_agree, null.first, null.second);
      if (o.canary_bias == 0) {
        // The canaries decide independently (own noise, own coins, own deviation from
        // the class), so all K keep with one node's chance to the power K: q^K per
        // class. Summed over the classes: the law holds per class effect, not for a mix.
        double expect = 0;
        for (std::size_t i = 0; i < r.effects.size(); ++i)
          if (r.effects[i] <= null.second)
            expect += o.reps * std::pow(r.at(FleetRule::per_node, i).keep_rate(), k);
        if (agree * n > expect + 3 * std::sqrt(expect) + 2)
          fail(r, FleetRule::canaries_agree, "class false keeps above the product law", agree);
      }
      if (independent && agree > alpha + margin)
        fail(r, FleetRule::canaries_agree, "class false keeps above the bound", agree);
      // Pooled: one test at false_keep_rate; its bound holds when the canaries share the
      // class's effect.
      double pooled = r.keep_rate(FleetRule::pooled, null.first, null.second);
      if (o.effect_sd == 0 && o.canary_bias == 0 && pooled > alpha + margin)
        fail(r, FleetRule::pooled, "class false keeps above the bound", pooled);
      // Checked: within the bound whenever the bias and spread are within the check's.
      double checked = r.keep_rate(FleetRule::canaries_checked, null.first, null.second);
      if (covered && checked > alpha + margin)
        fail(r, FleetRule::canaries_checked, "class false keeps above the bound", checked);
    }
    if (independent && class_decisions(r, gain.first, gain.second) > 0) {
      // Power for a class at power_effect, nodes 1% around it (README.md, with margin).
      const std::pair<FleetRule, double> needs[] = {{FleetRule::per_node, 0.75},
                                                    {FleetRule::canaries_agree, 0.60},
                                                    {FleetRule::pooled, 0.90}};
      for (auto [rule, need] : needs)
        if (double p = r.keep_rate(rule, gain.first, gain.second); p < need)
          fail(r, rule, "power below target", p);
    }
    // The fleet's drift: the agreeing canaries leave no more useless nodes than pooling.
    double agree = r.useless_nodes(FleetRule::canaries_agree);
    if (independent && agree > r.useless_nodes(FleetRule::pooled))
      fail(r, FleetRule::canaries_agree, "more useless nodes than pooled, per fleet", agree);
  }
  return missed;
}

}  // namespace tuner::verify
