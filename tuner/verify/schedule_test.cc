#include "tuner/verify/schedule.h"

#include <doctest/doctest.h>

#include <string>

using namespace tuner::verify;

namespace {

std::string letters(const std::vector<Arm>& order) {
  std::string s;
  for (Arm a : order) s += a == Arm::baseline ? 'A' : 'B';
  return s;
}

}  // namespace

TEST_CASE("interleaved: ABBA / BAAB blocks, balanced after every pair") {
  std::vector<Arm> order = trial_order(Design::interleaved, 40, 7);
  std::string s = letters(order);
  REQUIRE(s.size() == 80);
  for (std::size_t i = 0; i < s.size(); i += 4) {
    std::string quad = s.substr(i, 4);
    CAPTURE(i);
    CHECK((quad == "ABBA" || quad == "BAAB"));
  }
  int a = 0, b = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    (s[i] == 'A' ? a : b)++;
    if (i % 2 == 1) CHECK(a == b);  // every look point sees equal arms
  }
  // Both block kinds occur: the order is randomised, not fixed.
  CHECK(s.find("ABBA") != std::string::npos);
  CHECK(s.find("BAAB") != std::string::npos);
}

TEST_CASE("interleaved: a linear drift cancels within each block") {
  std::vector<Arm> order = trial_order(Design::interleaved, 20, 3);
  double pos_a = 0, pos_b = 0;
  for (std::size_t t = 0; t < order.size(); ++t)
    (order[t] == Arm::baseline ? pos_a : pos_b) += static_cast<double>(t);
  CHECK(pos_a == pos_b);  // 10 complete blocks: same mean position for both arms
}

TEST_CASE("interleaved: the same seed gives the same order, another seed another") {
  CHECK(letters(trial_order(Design::interleaved, 40, 11)) ==
        letters(trial_order(Design::interleaved, 40, 11)));
  CHECK(letters(trial_order(Design::interleaved, 40, 11)) !=
        letters(trial_order(Design::interleaved, 40, 12)));
  CHECK(letters(trial_order(Design::interleaved, 3, 5)).size() == 6);
}

TEST_CASE("blocked: A..A B..B with the baseline measured again") {
  CHECK(letters(trial_order(Design::blocked, 10, 0, 5)) == "AAAAABBBBBBBBBBAAAAA");
  // Longer runs continue the block-level A B B A pattern, switching every 2 blocks.
  CHECK(letters(trial_order(Design::blocked, 20, 0, 5)) ==
        "AAAAABBBBBBBBBBAAAAAAAAAABBBBBBBBBBAAAAA");
  // Counts stay exact when the block does not divide the trials.
  std::string s = letters(trial_order(Design::blocked, 7, 0, 5));
  CHECK(s == "AAAAABBBBBBBAA");
}
