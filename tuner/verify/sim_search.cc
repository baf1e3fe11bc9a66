#include "tuner/verify/sim_search.h"

#include <algorithm>

#include "tuner/verify/sim_noise.h"

namespace tuner::verify {
namespace {

using sim::Draw;
using sim::Machine;
using sim::mix;

// One run on the simulated machine: trial after trial, in run time.
struct Run {
  const Scenario& s;
  Draw draw;
  Machine m;
  std::size_t t = 0;

  Run(const Scenario& scenario, std::uint64_t seed)
      : s(scenario), draw(seed), m(sim::start_machine(scenario, draw)) {}

  double trial(bool written, double effect, bool candidate) {
    sim::before_trial(s, draw, m, t, written);
    return sim::trial_value(s, draw, m, t++, effect, candidate);
  }
};

// Screening: blocks of every arm in the race, each a unit of trials, in random order.
// Returns the runs it took.
unsigned screen(const SearchScenario& ss, const ScreenConfig& c, const std::vector<double>& effect,
                Run& run, std::uint64_t seed, Screen& out) {
  unsigned unit = unit_trials(ss.base.design, kSimBlock), runs = 0;
  std::vector<std::vector<double>> values(effect.size());
  out = start_screen(effect.size() - 1);
  for (unsigned block = 0; !out.done; ++block) {
    for (std::size_t arm : block_order(arms_in_race(out), mix(seed ^ (block + 1)))) {
      double sum = 0;
      for (unsigned u = 0; u < unit; ++u) sum += run.trial(u == 0, effect[arm], arm != 0);
      values[arm].push_back(sum / unit);
      runs += unit;
    }
    if (!screen_look(c, values, out).ok()) break;
  }
  return runs;
}

// Confirmation: the sequential test of one candidate against the baseline, fresh trials.
// Returns the verdict and sets the trials per arm it used.
Verdict confirm(const Config& config, Design design, double effect, Run& run, std::uint64_t seed,
                unsigned& used) {
  unsigned unit = unit_trials(design, kSimBlock);
  std::vector<Arm> order = trial_order(design, config.max_trials, seed);
  std::vector<double> a, b;
  for (std::size_t i = 0; i < order.size(); ++i) {
    bool flipped = i == 0 || order[i] != order[i - 1];
    bool candidate = order[i] == Arm::candidate;
    (candidate ? b : a)
        .push_back(
            run.trial(flipped || wash_before(order, i, unit), candidate ? effect : 0, candidate));
  }
  Verdict v = Verdict::more_trials;
  for (unsigned n : look_points(config)) {
    auto d = decide(config, std::span(a).first(n), std::span(b).first(n));
    v = d ? d->verdict : Verdict::inconclusive;
    used = n;
    if (v != Verdict::more_trials) break;
  }
  return v;
}

}  // namespace

std::vector<SearchScenario> search_scenarios(unsigned candidates) {
  std::vector<SearchScenario> out;
  for (const Scenario& s : standard_scenarios()) {
    if (s.effect != 0 || (s.cv != 0.03 && s.design == Design::interleaved) ||
        s.noise == Noise::stalls || s.noise == Noise::more_stalls || s.noise == Noise::cv_step ||
        s.noise == Noise::cv_step_down)
      continue;
    for (auto [best, other] : {std::pair{0.0, 0.0}, {0.01, 0.01}, {0.05, 0.0}})
      out.push_back({s, candidates, best, other});
  }
  return out;
}

SearchOutcome simulate_search(const SearchScenario& scenario, const SearchSimOptions& options,
                              std::uint64_t index) {
  const SearchScenario& ss = scenario;
  const SearchSimOptions& o = options;
  SearchOutcome out;
  Config config = config_for(o.config, ss.base.design);
  config.direction = ss.base.direction;
  ScreenConfig sc = screen_config_for(o.screen, ss.base.design);
  sc.direction = config.direction;
  sc.min_effect = config.min_effect;
  for (unsigned rep = 0; rep < o.reps; ++rep) {
    std::uint64_t seed = mix(mix(mix(o.seed) ^ index) ^ rep);
    Run run(ss.base, seed);
    std::vector<double> effect(ss.candidates + 1, ss.other_effect);
    effect[0] = 0;
    std::size_t target = 1 + run.draw.below(ss.candidates);
    effect[target] = ss.best_effect;
    Screen screened;
    unsigned runs = screen(ss, sc, effect, run, mix(seed ^ 0x736372), screened);
    out.screen_runs += runs;
    ++out.reps;
    if (!screened.best) {
      ++out.screened_out;
      out.runs += runs;
      continue;
    }
    std::size_t chosen = *screened.best + 1;
    if (chosen == target) ++out.chosen_right;
    unsigned used = 0;
    Verdict v = confirm(config, ss.base.design, effect[chosen], run, mix(seed ^ 0x636f6e), used);
    out.runs += runs + 2 * used;
    if (v != Verdict::keep) continue;
    ++out.keeps;
    if (chosen == target && ss.best_effect != ss.other_effect) ++out.found;
  }
  return out;
}

}  // namespace tuner::verify
