#include "tuner/verify/schedule.h"

#include <algorithm>

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

constexpr Arm A = Arm::baseline;
constexpr Arm B = Arm::candidate;

}  // namespace

std::string_view design_name(Design d) {
  return d == Design::interleaved ? "interleaved" : "blocked";
}

std::vector<Arm> trial_order(Design design, unsigned trials_per_arm, std::uint64_t seed,
                             unsigned block) {
  std::vector<Arm> order;
  std::size_t total = 2 * static_cast<std::size_t>(trials_per_arm);
  order.reserve(total);
  if (design == Design::interleaved) {
    static constexpr Arm abba[] = {A, B, B, A}, baab[] = {B, A, A, B};
    std::uint64_t state = seed;
    while (order.size() < total) {
      const Arm* quad = (splitmix64(state) >> 63) ? abba : baab;
      // Each half of a quad is one A and one B, so a cut after any pair stays balanced.
      for (int i = 0; i < 4 && order.size() < total; ++i) order.push_back(quad[i]);
    }
    return order;
  }
  block = std::max(1u, block);
  static constexpr Arm labels[] = {A, B, B, A};
  unsigned done[2] = {0, 0};
  for (std::size_t i = 0; order.size() < total; ++i) {
    Arm arm = labels[i % 4];
    auto& count = done[static_cast<int>(arm)];
    unsigned run = std::min(block, trials_per_arm - count);
    order.insert(order.end(), run, arm);
    count += run;
  }
  return order;
}

}  // namespace tuner::verify
