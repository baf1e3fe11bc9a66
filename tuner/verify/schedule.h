// In which order the verify loop runs baseline (A) and candidate (B) trials.
//
// Trials come in randomised units: a unit is `unit` baseline trials and `unit` candidate
// trials, in the order A..A B..B or B..B A..A chosen by a fair coin per unit. The coin
// is what makes the decision valid whatever the machine does meanwhile: under "no
// effect" a unit's contrast is as likely to favour B as A, because nothing else on the
// machine can know which way the coin fell. A disturbance locked to the run's start
// (a cron job, a periodic flush, a turbo budget), a period of 3 or 4 trials, or a drift
// cannot line up with one arm, and a fresh seed every run (the kernel's random source;
// reported, and replayed with `tuner apply --seed N`) keeps every run from repeating
// one order. decision.h tests one contrast per unit with the signed-rank test.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuner::verify {

enum class Arm : std::uint8_t { baseline, candidate };

enum class Design {
  /// For knobs that are cheap to toggle (sysctl, IRQ affinity): units of one trial per
  /// arm, AB or BA (unit = 1).
  interleaved,
  /// For knobs that are slow or disruptive to toggle (link renegotiation): units of
  /// `block` trials per arm, A..A B..B or B..B A..A, so the knob changes once per block.
  blocked,
};

/// "interleaved" / "blocked".
std::string_view design_name(Design d);
std::optional<Design> parse_design(std::string_view name);

/// Trials per arm in one unit of the design: 1, or `block` (at least 1).
unsigned unit_trials(Design design, unsigned block);

/// The order of 2 * trials_per_arm trials, trials_per_arm of each arm, in units of
/// unit_trials(design, block) per arm (a last unit that does not fit is cut evenly).
/// Deterministic for a seed.
std::vector<Arm> trial_order(Design design, unsigned trials_per_arm, std::uint64_t seed,
                             unsigned block = 3);

/// True when trial i starts a unit on the arm the previous trial ran: the loop then
/// flips the knobs to the other arm and back before it (a wash), so that no state a
/// flip leaves behind (caches, allocator, the benchmark's placement) is shared by two
/// units, and units stay independent.
bool wash_before(const std::vector<Arm>& order, std::size_t i, unsigned unit);

/// "ABBA...": the trials as run, for a report (the washes follow from it).
std::string order_string(const std::vector<Arm>& order);

/// A seed from the kernel's random source (getrandom), below 2^53 so that JSON readers
/// that hold numbers as doubles see it exactly.
std::uint64_t fresh_seed();

/// The seed of one measurement of a run: the run's seed mixed with the group's index
/// and the step (0 for the group, 1.. for bisect steps), below 2^53.
std::uint64_t derive_seed(std::uint64_t run_seed, std::uint64_t group, std::uint64_t step);

}  // namespace tuner::verify
