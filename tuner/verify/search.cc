#include "tuner/verify/search.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "tuner/verify/signed_rank.h"
#include "tuner/verify/sim_noise.h"
#include "tuner/verify/stats.h"

namespace tuner::verify {
namespace {

// The Hodges–Lehmann centre (signed_rank.h): one slow trial in a few blocks moves it far
// less than it moves a mean.
double hodges_lehmann(std::span<const double> d) { return SignedRankShift(d).estimate(); }

// The spread of one log value, from the residuals of arms x blocks after removing each
// arm's and each block's mean: a block-wide disturbance (a burst, a period) is not noise
// between arms. The median absolute residual, scaled to a normal sd and for the degrees
// of freedom the two means take out.
double pooled_sigma(const std::vector<std::vector<double>>& x) {
  std::size_t arms = x.size(), blocks = x.empty() ? 0 : x[0].size();
  if (arms < 2 || blocks < 2) return 0;
  std::vector<double> arm_mean(arms), block_mean(blocks, 0);
  double grand = 0;
  for (std::size_t a = 0; a < arms; ++a) {
    arm_mean[a] = mean(x[a]);
    grand += arm_mean[a] / static_cast<double>(arms);
    for (std::size_t b = 0; b < blocks; ++b) block_mean[b] += x[a][b] / static_cast<double>(arms);
  }
  std::vector<double> abs_residual;
  for (std::size_t a = 0; a < arms; ++a)
    for (std::size_t b = 0; b < blocks; ++b)
      abs_residual.push_back(std::fabs(x[a][b] - arm_mean[a] - block_mean[b] + grand));
  auto n = static_cast<double>(arms * blocks);
  auto df = static_cast<double>((arms - 1) * (blocks - 1));
  return 1.4826 * median(abs_residual) * std::sqrt(n / df);
}

}  // namespace

ScreenConfig screen_config_for(ScreenConfig c, Design design) {
  if (design == Design::blocked) {
    c.min_blocks = std::min(c.min_blocks, 2u);
    c.max_blocks = std::min(c.max_blocks, 3u);
  }
  return c;
}

unsigned search_worst_case_runs(Design design, std::size_t candidates, unsigned max_trials,
                                unsigned block) {
  unsigned confirm = 2 * max_trials;
  if (candidates < 2) return confirm;
  ScreenConfig c = screen_config_for(ScreenConfig{}, design);
  return c.max_blocks * static_cast<unsigned>(candidates + 1) * unit_trials(design, block) +
         confirm;
}

Screen start_screen(std::size_t candidates) {
  Screen s;
  s.arms.resize(candidates);
  return s;
}

std::vector<std::size_t> arms_in_race(const Screen& screen) {
  std::vector<std::size_t> out{0};
  for (std::size_t i = 0; i < screen.arms.size(); ++i)
    if (!screen.arms[i].dropped_at) out.push_back(i + 1);
  return out;
}

Status screen_look(const ScreenConfig& c, std::span<const std::vector<double>> values,
                   Screen& screen) {
  if (values.size() < 2) return Error::invalid("a search needs at least one candidate");
  screen.arms.resize(values.size() - 1);
  std::vector<std::size_t> race = arms_in_race(screen);
  std::size_t blocks = values[0].size();
  double sign = c.direction == Direction::higher ? 1 : -1;
  std::vector<std::vector<double>> x;  // log values of the arms in the race, better = up
  for (std::size_t a : race) {
    if (values[a].size() != blocks)
      return Error::invalid("arm " + std::to_string(a) + " has " +
                            std::to_string(values[a].size()) + " blocks, the baseline " +
                            std::to_string(blocks));
    std::vector<double> row;
    for (double v : values[a]) {
      if (!(v > 0) || !std::isfinite(v))
        return Error::invalid("a search needs positive benchmark values, got " + std::to_string(v));
      row.push_back(sign * std::log(v));
    }
    x.push_back(std::move(row));
  }
  screen.blocks = static_cast<unsigned>(blocks);
  screen.sigma = pooled_sigma(x);
  double se = screen.sigma * std::sqrt(2.0 / static_cast<double>(std::max<std::size_t>(1, blocks)));
  // Per arm in the race: the log gain over the baseline, and the standing that ranks the
  // candidates: the gain over each block's median arm. The median of all the block's arms
  // is a steadier yardstick than its one baseline trial, and a wild trial moves it little.
  std::vector<double> gain(race.size(), 0), standing(race.size(), 0), centre(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::vector<double> column;
    column.reserve(x.size());
    for (const std::vector<double>& arm : x) column.push_back(arm[b]);
    centre[b] = median(column);
  }
  for (std::size_t r = 1; r < race.size(); ++r) {
    std::vector<double> d(blocks);
    for (std::size_t b = 0; b < blocks; ++b) d[b] = x[r][b] - x[0][b];
    gain[r] = hodges_lehmann(d);
    std::vector<double> centred(blocks);
    for (std::size_t b = 0; b < blocks; ++b) centred[b] = x[r][b] - centre[b];
    standing[r] = hodges_lehmann(centred);
    ScreenArm& arm = screen.arms[race[r] - 1];
    arm.effect = std::expm1(gain[r]);
    arm.se = se;
    arm.blocks = static_cast<unsigned>(blocks);
  }
  // A candidate a guard tripped on goes now, and never leads.
  for (std::size_t r = 1; r < race.size(); ++r)
    if (ScreenArm& arm = screen.arms[race[r] - 1]; !arm.guard.empty())
      arm.dropped_at = static_cast<unsigned>(blocks);
  std::size_t lead = 0;  // index into race of the candidate in front
  for (std::size_t r = 1; r < race.size(); ++r)
    if (!screen.arms[race[r] - 1].dropped_at && (lead == 0 || standing[r] > standing[lead]))
      lead = r;
  if (blocks >= c.min_blocks && se > 0) {
    double threshold = std::log1p(c.min_effect);
    for (std::size_t r = 1; r < race.size(); ++r) {
      ScreenArm& arm = screen.arms[race[r] - 1];
      if (arm.dropped_at) continue;
      bool behind = lead != 0 && r != lead && standing[lead] - standing[r] > c.drop_z * se;
      bool short_of = gain[r] + c.futility_z * se < threshold;
      if (!behind && !short_of) continue;
      arm.dropped_at = static_cast<unsigned>(blocks);
      arm.behind_best = behind;
    }
  }
  std::vector<std::size_t> left = arms_in_race(screen);
  screen.best.reset();
  std::size_t best = 0;
  for (std::size_t r = 1; r < race.size(); ++r)
    if (!screen.arms[race[r] - 1].dropped_at && (best == 0 || standing[r] > standing[best]))
      best = r;
  if (best) screen.best = race[best] - 1;
  screen.done = left.size() <= 2 && blocks >= c.min_blocks;
  if (blocks >= c.max_blocks || left.size() == 1) screen.done = true;
  return Ok{};
}

std::vector<std::size_t> block_order(std::vector<std::size_t> arms, std::uint64_t seed) {
  sim::Draw draw(seed);
  for (std::size_t i = arms.size(); i > 1; --i)
    std::swap(arms[i - 1], arms[draw.below(static_cast<unsigned>(i))]);
  return arms;
}

}  // namespace tuner::verify
