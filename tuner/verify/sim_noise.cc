#include "tuner/verify/sim_noise.h"

#include <algorithm>

namespace tuner::verify::sim {
namespace {

constexpr double kMean = 100;
constexpr double kDriftPerTrial = 0.001, kFastDriftPerTrial = 0.005;
constexpr double kOutlierRate = 0.1, kOutlierSlowdown = 0.3;
constexpr double kBurstStart = 0.05, kBurstSlowdown = 0.15;
constexpr unsigned kBurstLength = 5;
constexpr double kStallRate = 0.2, kStallSlowdown = 0.3;
constexpr double kMoreStallsTypical = 0.05;
constexpr std::size_t kStepAt = 40;  // cv_step: trials at the lower noise level

unsigned period_of(Noise n) {
  switch (n) {
    case Noise::period3:
    case Noise::period3_locked: return 3;
    case Noise::period4:
    case Noise::period4_locked: return 4;
    default: return 0;
  }
}

}  // namespace

Machine start_machine(const Scenario& s, Draw& draw) {
  Machine m;
  m.flip_state = s.cv * draw.normal();
  if (unsigned p = period_of(s.noise);
      p && s.noise != Noise::period3_locked && s.noise != Noise::period4_locked)
    m.phase = static_cast<unsigned>(draw.uniform() * p) % p;
  return m;
}

void before_trial(const Scenario& s, Draw& draw, Machine& m, std::size_t t, bool written) {
  if (written) m.flip_state = s.cv * draw.normal();
  if (t % kSimBlock == 0) m.block_offset = kBlockOffsetSd * draw.normal();
}

double trial_value(const Scenario& s, Draw& draw, Machine& m, std::size_t t, double effect,
                   bool wide) {
  bool higher = s.direction == Direction::higher;
  double better = higher ? 1 : -1;  // sign of "better" on the raw scale
  double cv = s.noise == Noise::spread && wide ? 2 * s.cv : s.cv;
  if ((s.noise == Noise::cv_step && t < kStepAt) ||
      (s.noise == Noise::cv_step_down && t >= kStepAt))
    cv = s.cv / 3;
  // `wide` marks the candidate's trials: the spread and stalls models act on them only.
  double noise = s.noise == Noise::student_t3
                     ? std::exp(s.cv / std::numbers::sqrt3 * draw.student_t3())
                     : 1 + cv * draw.normal();
  double v = kMean * noise;
  auto at = static_cast<double>(t);
  switch (s.noise) {
    case Noise::drift: v *= 1 + better * kDriftPerTrial * at; break;
    case Noise::drift_fast: v *= 1 + better * kFastDriftPerTrial * at; break;
    case Noise::outlier:
      if (draw.uniform() < kOutlierRate) v *= 1 - better * kOutlierSlowdown;
      break;
    case Noise::bimodal:
      if (draw.uniform() < 0.5) v *= 1 + better * 2 * s.cv;
      break;
    case Noise::bursts:
      if (m.burst_left == 0 && draw.uniform() < kBurstStart) m.burst_left = kBurstLength;
      if (m.burst_left > 0) {
        --m.burst_left;
        v *= 1 - better * kBurstSlowdown;
      }
      break;
    case Noise::flip_state: v *= std::exp(m.flip_state); break;
    case Noise::block_offset: v *= std::exp(m.block_offset); break;
    case Noise::stalls:
      if (wide) {  // the candidate: the effect is its mean; the typical trial gains more
        if (draw.uniform() < kStallRate) v *= 1 - better * kStallSlowdown;
        effect = (1 + better * effect) / (1 - better * kStallRate * kStallSlowdown) - 1;
        effect *= better;
      }
      break;
    case Noise::more_stalls:  // typical +5% in the candidate; its slow rate sets the mean
      if (draw.uniform() < (wide ? more_stalls_rate(effect) : kOutlierRate))
        v *= 1 - better * kOutlierSlowdown;
      if (wide) effect = better * kMoreStallsTypical;
      break;
    default:
      if (unsigned p = period_of(s.noise); p && t % p == m.phase) v *= 1 - better * 2 * s.cv;
      break;
  }
  v *= 1 + better * effect;
  if (s.noise == Noise::quantized) v = std::round(v);
  return v;
}

}  // namespace tuner::verify::sim

namespace tuner::verify {

double more_stalls_rate(double effect) {
  double base = 1 - sim::kOutlierRate * sim::kOutlierSlowdown;  // the baseline's mean, 0.97
  double rate = (1 - (1 + effect) * base / (1 + sim::kMoreStallsTypical)) / sim::kOutlierSlowdown;
  return std::clamp(rate, 0.0, 1.0);
}

double stalls_mean_effect(double typical) {
  return (1 + typical) * (1 - sim::kStallRate * sim::kStallSlowdown) - 1;
}

}  // namespace tuner::verify
