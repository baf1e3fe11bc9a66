// In which order the verify loop runs baseline (A) and candidate (B) trials.
//
// Machines drift: thermals, page cache, a neighbour's job, frequency governors. If all
// A trials ran before all B trials, a drift of 1% over the run would read as a 1% gain.
// Counterbalanced orders cancel a linear drift: in A B B A the two arms have the same
// mean position. The rank test assumes exchangeable trials; alternating in small blocks
// keeps each arm's trials spread over the same stretch of time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tuner::verify {

enum class Arm : std::uint8_t { baseline, candidate };

enum class Design {
  /// For knobs that are cheap to toggle (sysctl, IRQ affinity): blocks of four, each
  /// A B B A or B A A B chosen at random (A B B A B A A B ...). Every prefix of even
  /// length has as many A as B; a linear drift cancels within each block, and the
  /// random choice keeps a periodic disturbance from lining up with one arm.
  interleaved,
  /// For knobs that are slow or disruptive to toggle (link renegotiation): runs of
  /// `block` trials in the block-level order A B B A, joined: A..A B..B B..B A..A, ...
  /// so the knob changes once per 2 * block trials and the baseline is measured again
  /// after the candidate. Linear drift cancels at every 2 * block trials per arm, so
  /// looks should fall there (Config::min_trials = look_every = 2 * block).
  blocked,
};

/// "interleaved" / "blocked".
std::string_view design_name(Design d);

/// The order of 2 * trials_per_arm trials, trials_per_arm of each arm. Deterministic for
/// a given seed (the blocked design does not use it). `block` >= 1 (blocked only).
std::vector<Arm> trial_order(Design design, unsigned trials_per_arm, std::uint64_t seed,
                             unsigned block = 5);

}  // namespace tuner::verify
