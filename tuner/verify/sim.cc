#include "tuner/verify/sim.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>

#include "base/enum_names.h"
#include "tuner/verify/sim_noise.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {
namespace {

using sim::Draw;
using sim::Machine;
using sim::mix;

// The scenario's effect on the candidate arm.
double trial_value(const Scenario& s, Draw& draw, Machine& m, std::size_t t, Arm arm) {
  bool candidate = arm == Arm::candidate;
  return sim::trial_value(s, draw, m, t, candidate ? s.effect : 0, candidate);
}

void count(MethodOutcome& m, Verdict v, unsigned trials) {
  ++m.reps;
  ++m.verdicts[static_cast<int>(v)];
  if (v == Verdict::keep) ++m.keeps;
  m.trials_per_arm += trials;
}

Verdict fixed_n(const Config& base, unsigned n, std::span<const double> a,
                std::span<const double> b) {
  Config c = base;
  c.min_trials = c.max_trials = c.look_every = n;  // one look, the whole false-keep rate
  c.unit = std::min(c.unit, n);
  auto d = decide(c, a.first(n), b.first(n));
  return d ? d->verdict : Verdict::inconclusive;
}

std::uint64_t rep_seed(const SimOptions& o, std::uint64_t index, unsigned rep) {
  return mix(mix(mix(o.seed) ^ index) ^ rep);
}

// One run: the trial values of each arm, in the order run, as the loop would see them.
void run_trials(const Scenario& s, std::uint64_t seed, unsigned trials_per_arm,
                std::vector<double>& a, std::vector<double>& b) {
  Draw draw(seed);
  a.clear();
  b.clear();
  unsigned unit = unit_trials(s.design, kSimBlock);
  std::vector<Arm> order = trial_order(s.design, trials_per_arm, mix(seed));
  Machine m = sim::start_machine(s, draw);
  for (std::size_t t = 0; t < order.size(); ++t) {
    // Every knob write draws a new state: a flip between arms, and both writes of a wash.
    bool flipped = t > 0 && order[t] != order[t - 1];
    sim::before_trial(s, draw, m, t, flipped || wash_before(order, t, unit));
    (order[t] == Arm::baseline ? a : b).push_back(trial_value(s, draw, m, t, order[t]));
  }
}

}  // namespace

namespace {

constexpr std::array<EnumName<Noise>, 19> kNoises = {{
    {Noise::normal, "normal"},
    {Noise::student_t3, "t3"},
    {Noise::drift, "drift"},
    {Noise::drift_fast, "drift0.5"},
    {Noise::outlier, "outlier"},
    {Noise::bimodal, "bimodal"},
    {Noise::bursts, "bursts"},
    {Noise::spread, "spread"},
    {Noise::quantized, "quantized"},
    {Noise::flip_state, "flip"},
    {Noise::period3, "period3"},
    {Noise::period4, "period4"},
    {Noise::period3_locked, "period3@0"},
    {Noise::period4_locked, "period4@0"},
    {Noise::block_offset, "blockoff"},
    {Noise::stalls, "stalls"},
    {Noise::more_stalls, "more-stalls"},
    {Noise::cv_step, "cv-step"},
    {Noise::cv_step_down, "cv-step-down"},
}};
static_assert(in_enum_order(kNoises));

}  // namespace

std::string_view noise_name(Noise n) { return enum_name(kNoises, n); }

Config sim_config() {
  Config c;
  c.min_effect = 0.01;
  c.false_keep_rate = 0.01;
  c.miss_rate = 0.05;
  c.max_trials = 40;
  return c;
}

Config shipped_config() {
  Config c;
  c.min_effect = 0.02;
  c.false_keep_rate = 0.01;
  c.miss_rate = 0.05;
  c.max_trials = 40;
  return c;
}

Config config_for(Config c, Design design) {
  if (design == Design::blocked) {
    c.unit = kSimBlock;
    c.min_trials = c.look_every = 2 * kSimBlock;
  }
  return c;
}

std::vector<Scenario> standard_scenarios(double min_effect) {
  std::vector<Scenario> out;
  const double effects[] = {0, 0.01, 0.05, -0.05};
  for (double cv : {0.03, 0.01})
    for (Noise n : {Noise::normal, Noise::student_t3, Noise::drift, Noise::outlier})
      for (double e : effects) out.push_back({n, cv, e, Direction::higher});
  for (Noise n : {Noise::normal, Noise::outlier})
    for (double e : effects) out.push_back({n, 0.03, e, Direction::lower});
  for (Noise n :
       {Noise::quantized, Noise::bimodal, Noise::bursts, Noise::flip_state, Noise::period3,
        Noise::period4, Noise::period3_locked, Noise::period4_locked, Noise::drift_fast})
    for (double e : effects) out.push_back({n, 0.03, e, Direction::higher});
  for (double e : effects)
    out.push_back({Noise::block_offset, 0.02, e, Direction::higher, Design::blocked});
  for (double e : effects)
    out.push_back({Noise::flip_state, 0.03, e, Direction::higher, Design::blocked});
  out.push_back({Noise::spread, 0.03, 0, Direction::higher});
  out.push_back({Noise::spread, 0.03, 0.01, Direction::higher});
  for (double e : {stalls_mean_effect(0.05), 0.0, min_effect, 0.05})
    out.push_back({Noise::stalls, 0.03, e, Direction::higher});
  for (double e : {0.0, min_effect, 0.05})
    out.push_back({Noise::more_stalls, 0.03, e, Direction::higher});
  for (Noise n : {Noise::cv_step, Noise::cv_step_down})
    for (double e : {0.0, min_effect, 0.05, -0.05}) out.push_back({n, 0.03, e, Direction::higher});
  return out;
}

ScenarioResult simulate(const Scenario& s, const SimOptions& o, std::uint64_t index) {
  ScenarioResult r;
  r.scenario = s;
  Config config = config_for(o.config, s.design);
  config.direction = s.direction;
  std::vector<unsigned> looks = look_points(config);
  unsigned most = std::max({config.max_trials, o.fixed_small, o.fixed_large});
  std::vector<double> a, b;
  for (unsigned rep = 0; rep < o.reps; ++rep) {
    std::uint64_t seed = rep_seed(o, index, rep);
    run_trials(s, seed, most, a, b);
    Verdict v = Verdict::more_trials;
    unsigned used = 0;
    for (unsigned n : looks) {
      auto d = decide(config, std::span(a).first(n), std::span(b).first(n));
      v = d ? d->verdict : Verdict::inconclusive;
      used = n;
      if (v != Verdict::more_trials) break;
    }
    count(r.sequential, v, used);
    count(r.fixed_small, fixed_n(config, o.fixed_small, a, b), o.fixed_small);
    count(r.fixed_large, fixed_n(config, o.fixed_large, a, b), o.fixed_large);
    // The naive rule as a one-shot tuner applies it: baseline first, then candidate.
    Draw draw(mix(seed ^ 0x6e61697665ULL));
    Machine m;
    double sum_a = 0, sum_b = 0;
    for (std::size_t t = 0; t < 8; ++t) {
      Arm arm = t < 5 ? Arm::baseline : Arm::candidate;
      sim::before_trial(s, draw, m, t, t == 5);
      (arm == Arm::baseline ? sum_a : sum_b) += trial_value(s, draw, m, t, arm);
    }
    double gain = sum_b / 3 - sum_a / 5;
    bool keep = s.direction == Direction::higher ? gain > 0 : gain < 0;
    count(r.naive, keep ? Verdict::keep : Verdict::no_gain, 4);
  }
  return r;
}

unsigned fixed_trials_needed(const Scenario& s, const SimOptions& o, std::uint64_t index) {
  Config config = config_for(o.config, s.design);
  config.direction = s.direction;
  unsigned unit = config.unit;
  // The smallest n (in units) whose fixed test keeps >= 1 - miss_rate, by bisection
  // over the same replications (power grows with n up to simulation noise).
  auto power = [&](unsigned n_units) {
    unsigned n = n_units * unit, keeps = 0;
    std::vector<double> a, b;
    for (unsigned rep = 0; rep < o.reps; ++rep) {
      run_trials(s, rep_seed(o, index, rep), n, a, b);
      keeps += fixed_n(config, n, a, b) == Verdict::keep;
    }
    return static_cast<double>(keeps) / o.reps;
  };
  unsigned lo = (5 + unit - 1) / unit, hi = 400 / unit;
  if (power(hi) < 1 - config.miss_rate) return 0;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (power(mid) >= 1 - config.miss_rate) hi = mid;
    else lo = mid + 1;
  }
  return lo * unit;
}

}  // namespace tuner::verify
