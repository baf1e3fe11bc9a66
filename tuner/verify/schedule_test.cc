#include "tuner/verify/schedule.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace tuner::verify;

TEST_CASE("interleaved: units of one trial per arm, AB or BA, balanced after every unit") {
  std::string s = order_string(trial_order(Design::interleaved, 40, 7));
  REQUIRE(s.size() == 80);
  int ab = 0, ba = 0;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    std::string unit = s.substr(i, 2);
    CAPTURE(i);
    REQUIRE((unit == "AB" || unit == "BA"));
    (unit == "AB" ? ab : ba)++;
  }
  // A fair coin per unit: both kinds occur, neither dominates (40 flips: 8..32 holds
  // with probability 1 - 1e-4, and the seed is fixed).
  CHECK(ab >= 8);
  CHECK(ba >= 8);
}

TEST_CASE("blocked: units of `block` trials per arm, the coin deciding which arm first") {
  std::string s = order_string(trial_order(Design::blocked, 12, 3, 3));
  REQUIRE(s.size() == 24);
  for (std::size_t i = 0; i < s.size(); i += 6) {
    std::string unit = s.substr(i, 6);
    CAPTURE(i);
    CHECK((unit == "AAABBB" || unit == "BBBAAA"));
  }
  // Counts stay exact when the block does not divide the trials.
  std::string cut = order_string(trial_order(Design::blocked, 7, 0, 5));
  CHECK(cut.size() == 14);
  CHECK(std::count(cut.begin(), cut.end(), 'A') == 7);
  CHECK((cut.substr(10) == "AABB" || cut.substr(10) == "BBAA"));
}

TEST_CASE("the same seed gives the same order, other seeds other orders") {
  CHECK(order_string(trial_order(Design::interleaved, 40, 11)) ==
        order_string(trial_order(Design::interleaved, 40, 11)));
  std::set<std::string> orders;
  for (std::uint64_t seed = 1; seed <= 50; ++seed)
    orders.insert(order_string(trial_order(Design::interleaved, 40, seed)));
  CHECK(orders.size() == 50);
  CHECK(order_string(trial_order(Design::interleaved, 3, 5)).size() == 6);
}

TEST_CASE("a wash before a unit that starts on the arm the previous unit ended on") {
  std::vector<Arm> order = trial_order(Design::interleaved, 40, 9);
  std::string s = order_string(order);
  for (std::size_t i = 0; i < order.size(); ++i) {
    CAPTURE(i);
    bool same_arm_at_unit_start = i > 0 && i % 2 == 0 && s[i] == s[i - 1];
    CHECK(wash_before(order, i, 1) == same_arm_at_unit_start);
  }
  // Inside a unit never: AAABBB has its flip already.
  std::vector<Arm> blocked = trial_order(Design::blocked, 6, 4, 3);
  for (std::size_t i = 1; i < blocked.size(); ++i)
    if (i % 6 != 0) CHECK_FALSE(wash_before(blocked, i, 3));
}

TEST_CASE("seeds: fresh ones differ and fit in 53 bits; derived ones are stable") {
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 20; ++i) {
    std::uint64_t s = fresh_seed();
    CHECK(s < (std::uint64_t{1} << 53));
    seen.insert(s);
  }
  CHECK(seen.size() == 20);
  CHECK(derive_seed(42, 0, 0) == derive_seed(42, 0, 0));
  CHECK(derive_seed(42, 0, 0) != derive_seed(42, 1, 0));
  CHECK(derive_seed(42, 0, 0) != derive_seed(42, 0, 1));
  CHECK(derive_seed(42, 0, 0) != derive_seed(43, 0, 0));
  CHECK(derive_seed(42, 3, 2) < (std::uint64_t{1} << 53));
}
