#include "tuner/verify/schedule.h"

#include "base/enum_names.h"

#include <sys/random.h>

#include <algorithm>
#include <chrono>

namespace tuner::verify {
namespace {

// SplitMix64 (Steele, Lea and Flood 2014): a fixed, portable sequence for a seed, so a
// run's trial order can be reproduced from the seed in its report.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr std::uint64_t kSeedMask = (std::uint64_t{1} << 53) - 1;

}  // namespace

namespace {

constexpr std::array<EnumName<Design>, 2> kDesigns = {{
    {Design::interleaved, "interleaved"},
    {Design::blocked, "blocked"},
}};
static_assert(in_enum_order(kDesigns));

}  // namespace

std::string_view design_name(Design d) { return enum_name(kDesigns, d); }
std::optional<Design> parse_design(std::string_view name) { return enum_from_name(kDesigns, name); }

unsigned unit_trials(Design design, unsigned block) {
  return design == Design::interleaved ? 1 : std::max(1u, block);
}

std::vector<Arm> trial_order(Design design, unsigned trials_per_arm, std::uint64_t seed,
                             unsigned block) {
  unsigned unit = unit_trials(design, block);
  std::vector<Arm> order;
  order.reserve(2 * static_cast<std::size_t>(trials_per_arm));
  std::uint64_t state = seed;
  for (unsigned done = 0; done < trials_per_arm; done += unit) {
    unsigned run = std::min(unit, trials_per_arm - done);
    bool baseline_first = (splitmix64(state) >> 63) != 0;
    Arm first = baseline_first ? Arm::baseline : Arm::candidate;
    Arm second = baseline_first ? Arm::candidate : Arm::baseline;
    order.insert(order.end(), run, first);
    order.insert(order.end(), run, second);
  }
  return order;
}

bool wash_before(const std::vector<Arm>& order, std::size_t i, unsigned unit) {
  return i > 0 && i < order.size() && i % (std::size_t{2} * std::max(1u, unit)) == 0 &&
         order[i] == order[i - 1];
}

std::string order_string(const std::vector<Arm>& order) {
  std::string out;
  for (Arm a : order) out += a == Arm::baseline ? 'A' : 'B';
  return out;
}

std::uint64_t fresh_seed() {
  std::uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, 0) != static_cast<ssize_t>(sizeof seed)) {
    // No entropy source (a very early boot): the clock is still a fresh order per run.
    auto t = std::chrono::steady_clock::now().time_since_epoch().count();
    auto state = static_cast<std::uint64_t>(t);
    seed = splitmix64(state);
  }
  return seed & kSeedMask;
}

std::uint64_t derive_seed(std::uint64_t run_seed, std::uint64_t group, std::uint64_t step) {
  std::uint64_t state = run_seed;
  std::uint64_t a = splitmix64(state) ^ group;
  state = a;
  std::uint64_t b = splitmix64(state) ^ step;
  state = b;
  return splitmix64(state) & kSeedMask;
}

}  // namespace tuner::verify
