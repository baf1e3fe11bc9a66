// The simulated machine under sim.h and search_sim.h: a reproducible random source and
// the noise models acting on one trial at a time, in the order trials run.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

#include "tuner/verify/sim.h"

namespace tuner::verify::sim {

/// SplitMix64's finaliser: mixes seeds, replication numbers and indices.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Draws from the fully specified mt19937_64 with our own transforms (the standard's
/// distributions differ between library implementations): same seed, same table.
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
  /// 0 .. n-1, uniformly.
  unsigned below(unsigned n) { return static_cast<unsigned>(uniform() * n) % n; }

 private:
  std::mt19937_64 gen_;
  double spare_ = 0;
  bool have_spare_ = false;
};

inline constexpr double kBlockOffsetSd = 0.02;

/// The machine's state over one run: what the knob writes, the clock and the bursts
/// left behind, as the noise model has it.
struct Machine {
  double flip_state = 0;    ///< log offset since the last knob write (flip_state)
  double block_offset = 0;  ///< log offset of the current block (block_offset)
  unsigned phase = 0;       ///< of the periodic disturbance
  unsigned burst_left = 0;  ///< trials still slowed by a burst
};

/// A machine at the start of a run of scenario `s`: the first flip state and, unless
/// the period is locked to the run's start, a random phase.
Machine start_machine(const Scenario& s, Draw& draw);

/// Before trial `t`: a knob write (`written`) draws a new flip state, and every
/// kSimBlock trials a new block offset.
void before_trial(const Scenario& s, Draw& draw, Machine& m, std::size_t t, bool written);

/// One trial's value at trial `t` of the whole run (drift and periods follow run time)
/// for settings whose true relative gain is `effect`; `wide`: a candidate's trial, which
/// the `spread` model gives twice the noise and the `stalls` model its stalls (its
/// `effect` is then the gain in the mean).
double trial_value(const Scenario& s, Draw& draw, Machine& m, std::size_t t, double effect,
                   bool wide);

}  // namespace tuner::verify::sim
