#include "tuner/verify/sim.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "tuner/verify/schedule.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {
namespace {

std::uint64_t mix(std::uint64_t x) {  // SplitMix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Draws from the fully specified mt19937_64 with our own transforms (the standard's
// distributions differ between library implementations): same seed, same table.
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : gen_(seed) {}
  double uniform() { return (static_cast<double>(gen_() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() {  // Box–Muller, both halves used
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    double r = std::sqrt(-2 * std::log(uniform())), phi = 2 * std::numbers::pi * uniform();
    spare_ = r * std::sin(phi);
    have_spare_ = true;
    return r * std::cos(phi);
  }
  double student_t3() {
    double z = normal(), chi2 = 0;
    for (int i = 0; i < 3; ++i) {
      double g = normal();
      chi2 += g * g;
    }
    return z / std::sqrt(chi2 / 3);
  }

 private:
  std::mt19937_64 gen_;
  double spare_ = 0;
  bool have_spare_ = false;
};

constexpr double kMean = 100;
constexpr double kDriftPerTrial = 0.001;
constexpr double kOutlierRate = 0.1, kOutlierSlowdown = 0.3;

// One trial's value: trial `t` of the whole run (drift follows run time), `arm`.
double trial_value(const Scenario& s, Draw& draw, std::size_t t, Arm arm) {
  bool higher = s.direction == Direction::higher;
  double better = higher ? 1 : -1;  // sign of "better" on the raw scale
  double cv = s.noise == Noise::spread && arm == Arm::candidate ? 2 * s.cv : s.cv;
  double noise = s.noise == Noise::student_t3
                     ? std::exp(s.cv / std::numbers::sqrt3 * draw.student_t3())
                     : 1 + cv * draw.normal();
  double v = kMean * noise;
  if (s.noise == Noise::drift) v *= 1 + better * kDriftPerTrial * static_cast<double>(t);
  if (s.noise == Noise::outlier && draw.uniform() < kOutlierRate)
    v *= 1 - better * kOutlierSlowdown;
  if (arm == Arm::candidate) v *= 1 + better * s.effect;
  if (s.noise == Noise::quantized) v = std::round(v);
  return v;
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
  c.min_trials = c.max_trials = n;  // one look, the whole false-keep rate at it
  auto d = decide(c, a.first(n), b.first(n));
  return d ? d->verdict : Verdict::inconclusive;
}

}  // namespace

std::string_view noise_name(Noise n) {
  switch (n) {
    case Noise::normal: return "normal";
    case Noise::student_t3: return "t3";
    case Noise::drift: return "drift";
    case Noise::outlier: return "outlier";
    case Noise::spread: return "spread";
    case Noise::quantized: return "quantized";
  }
  return "?";
}

Config sim_config() {
  Config c;
  c.min_effect = 0.01;
  c.false_keep_rate = 0.01;
  c.miss_rate = 0.05;
  c.max_trials = 40;
  return c;
}

std::vector<Scenario> standard_scenarios() {
  std::vector<Scenario> out;
  const double effects[] = {0, 0.01, 0.05, -0.05};
  for (double cv : {0.03, 0.01})
    for (Noise n : {Noise::normal, Noise::student_t3, Noise::drift, Noise::outlier})
      for (double e : effects) out.push_back({n, cv, e, Direction::higher});
  for (Noise n : {Noise::normal, Noise::outlier})
    for (double e : effects) out.push_back({n, 0.03, e, Direction::lower});
  for (double e : effects) out.push_back({Noise::quantized, 0.03, e, Direction::higher});
  out.push_back({Noise::spread, 0.03, 0, Direction::higher});
  return out;
}

ScenarioResult simulate(const Scenario& s, const SimOptions& o, std::uint64_t index) {
  ScenarioResult r;
  r.scenario = s;
  Config config = o.config;
  config.direction = s.direction;
  std::vector<unsigned> looks = look_points(config);
  unsigned most = std::max({config.max_trials, o.fixed_small, o.fixed_large});
  std::vector<double> a, b;
  for (unsigned rep = 0; rep < o.reps; ++rep) {
    std::uint64_t seed = mix(mix(mix(o.seed) ^ index) ^ rep);
    Draw draw(seed);
    a.clear();
    b.clear();
    std::vector<Arm> order = trial_order(Design::interleaved, most, seed);
    for (std::size_t t = 0; t < order.size(); ++t)
      (order[t] == Arm::baseline ? a : b).push_back(trial_value(s, draw, t, order[t]));

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
    double sum_a = 0, sum_b = 0;
    for (std::size_t t = 0; t < 8; ++t) {
      Arm arm = t < 5 ? Arm::baseline : Arm::candidate;
      (arm == Arm::baseline ? sum_a : sum_b) += trial_value(s, draw, t, arm);
    }
    double gain = sum_b / 3 - sum_a / 5;
    bool keep = s.direction == Direction::higher ? gain > 0 : gain < 0;
    count(r.naive, keep ? Verdict::keep : Verdict::no_gain, 4);
  }
  return r;
}

}  // namespace tuner::verify
