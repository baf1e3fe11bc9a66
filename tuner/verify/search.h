// Value search: which of a knob's candidate values to verify. README.md in this folder,
// "Value search", has the method and the simulation behind its numbers.
//
// A search runs in two phases on separate trials. Screening interleaves the baseline and
// every candidate still in the race in randomised blocks (each block runs every arm once,
// in a fresh random order), and after each block drops the candidates shown behind the
// best one, or shown short of min_effect. When one candidate is left, or the screening
// budget is spent, the best one goes to the confirmation: the ordinary sequential keep
// test (decision.h) of that candidate against the baseline, on new trials. The choice
// depends only on screening trials, so the confirmation's false-keep bound holds for the
// chosen candidate as for a single stated value: when no candidate is better than
// min_effect, whichever is chosen is kept with a chance of at most false_keep_rate.
// Screening needs no error guarantee of its own; its rules only trade runs for power.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tuner/verify/decision.h"
#include "tuner/verify/schedule.h"

namespace tuner::verify {

/// Candidates one knob may have (the profile's limit).
inline constexpr std::size_t kMaxCandidates = 16;

struct ScreenConfig {
  Direction direction = Direction::higher;
  double min_effect = 0.02;
  unsigned min_blocks = 3;  ///< blocks before the first drop
  unsigned max_blocks = 5;  ///< then the best candidate goes to the confirmation
  /// A candidate goes when the best one leads it by more than drop_z standard errors.
  double drop_z = 2.0;
  /// A candidate goes when its gain is below min_effect by more than futility_z
  /// standard errors; when every candidate has gone, the search ends with no_gain.
  double futility_z = 2.5;
};

/// The screening the loop runs in `design`: for the blocked design, where a block holds
/// `block` trials per arm and the confirmation alone costs about twice the interleaved
/// one, 2 to 3 blocks instead of 3 to 5 (README.md, "Value search").
ScreenConfig screen_config_for(ScreenConfig c, Design design);

/// The most benchmark runs (all arms) a search of `candidates` values can take: every
/// screening block in `design`, then the confirmation to max_trials per arm. One
/// candidate is verified directly, without screening.
unsigned search_worst_case_runs(Design design, std::size_t candidates, unsigned max_trials,
                                unsigned block);

/// Where one candidate stands after a screening look.
struct ScreenArm {
  double effect = 0;                   ///< relative gain over the baseline, positive = better
  double se = 0;                       ///< its standard error (log scale), from the pooled spread
  unsigned blocks = 0;                 ///< screening blocks it ran in
  std::optional<unsigned> dropped_at;  ///< the block after which it went
  bool behind_best = false;            ///< went behind the best (else short of min_effect)
  /// A guard tripped on its trials (the loop's text of the trip): the next look drops
  /// it whatever its standing, as a guard rolls back a single value.
  std::string guard;
  /// The kernel refused to take the value (a write failed, or it is not a value of the
  /// knob): it left the race when it was to run, with a note, and the rest raced on.
  std::string refused;
};

/// The screening so far. `values[0]` is the baseline, `values[i]` candidate i; each
/// holds one value per block the arm ran in (the mean of the unit's trials), in block
/// order. Every arm still in the race has a value for every block run.
struct Screen {
  std::vector<ScreenArm> arms;      ///< per candidate (index i - 1 of values)
  std::optional<std::size_t> best;  ///< candidate index (0-based) in front, if any left
  bool done = false;                ///< confirm `best`, or (no best) end with no_gain
  unsigned blocks = 0;
  double sigma = 0;  ///< pooled spread of one log value (robust), 0 before block 2
};

/// A screening of `candidates` values before its first block: every one in the race.
Screen start_screen(std::size_t candidates);

/// Which arms (0 = baseline, 1.. = candidates) run in the next block: the baseline and
/// every candidate not dropped.
std::vector<std::size_t> arms_in_race(const Screen& screen);

/// Updates `screen` after a complete block: effects, the spread, drops (from
/// min_blocks on; at once for a candidate whose `guard` is set), the best candidate and
/// whether screening is done (always when no candidate is left). Values must be
/// positive (log scale). `values` as described at Screen.
Status screen_look(const ScreenConfig& config, std::span<const std::vector<double>> values,
                   Screen& screen);

/// The order of the arms in one block: a random permutation from `seed`.
std::vector<std::size_t> block_order(std::vector<std::size_t> arms, std::uint64_t seed);

}  // namespace tuner::verify
