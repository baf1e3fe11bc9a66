#include "tuner/verify/search.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace tuner::verify;

namespace {

// `blocks` blocks of the baseline at 100 and candidates at the given relative gains,
// with a small alternating wobble so the spread is not zero.
std::vector<std::vector<double>> blocks_of(const std::vector<double>& gains, unsigned blocks) {
  std::vector<std::vector<double>> v(gains.size() + 1);
  for (unsigned b = 0; b < blocks; ++b)
    for (std::size_t a = 0; a <= gains.size(); ++a) {
      double wobble = ((a + b) % 3 == 0 ? 0.01 : (a + b) % 3 == 1 ? -0.01 : 0.0);
      v[a].push_back(100 * (1 + (a ? gains[a - 1] : 0)) * (1 + wobble));
    }
  return v;
}

Screen look(const ScreenConfig& c, const std::vector<std::vector<double>>& v) {
  Screen s = start_screen(v.size() - 1);
  // Looks block by block, as the loop makes them.
  for (unsigned b = 1; b <= v[0].size(); ++b) {
    std::vector<std::vector<double>> upto;
    for (std::size_t a = 0; a < v.size(); ++a) {
      bool in = a == 0 || a > s.arms.size() || !s.arms[a - 1].dropped_at ||
                *s.arms[a - 1].dropped_at >= b;
      upto.emplace_back(v[a].begin(),
                        v[a].begin() + (in ? b : std::min<unsigned>(b, *s.arms[a - 1].dropped_at)));
    }
    REQUIRE(screen_look(c, upto, s).ok());
    if (s.done) break;
  }
  return s;
}

}  // namespace

TEST_CASE("screening: a clear winner leaves the race alone and goes to confirmation") {
  ScreenConfig c;
  c.min_effect = 0.01;
  Screen s = look(c, blocks_of({0, 0.10, 0, 0}, 5));
  REQUIRE(s.best);
  CHECK(*s.best == 1);
  CHECK(s.done);
  CHECK(s.blocks == c.min_blocks);  // every other candidate dropped at the first drop look
  for (std::size_t i : {0u, 2u, 3u}) {
    REQUIRE(s.arms[i].dropped_at);
    CHECK(*s.arms[i].dropped_at == c.min_blocks);
  }
  CHECK(s.arms[1].effect == doctest::Approx(0.10).epsilon(0.02));
}

TEST_CASE("screening: every candidate short of min_effect ends the search with no best") {
  ScreenConfig c;
  c.min_effect = 0.02;
  Screen s = look(c, blocks_of({-0.10, -0.12, -0.15}, 5));
  CHECK(s.done);
  CHECK_FALSE(s.best);
  for (const ScreenArm& a : s.arms) CHECK(a.dropped_at);
  CHECK_FALSE(s.arms[0].behind_best);  // the one in front went short of min_effect
}

TEST_CASE("screening: nothing is dropped before min_blocks, and max_blocks ends it") {
  ScreenConfig c;
  c.min_effect = 0.01;
  c.min_blocks = 4;
  c.max_blocks = 4;
  std::vector<std::vector<double>> v = blocks_of({0.03, 0.03, 0.03}, 3);
  Screen s = start_screen(3);
  REQUIRE(screen_look(c, v, s).ok());
  CHECK_FALSE(s.done);
  for (const ScreenArm& a : s.arms) CHECK_FALSE(a.dropped_at);
  CHECK(arms_in_race(s).size() == 4);
  v = blocks_of({0.03, 0.03, 0.03}, 4);
  REQUIRE(screen_look(c, v, s).ok());
  CHECK(s.done);
  CHECK(s.best);
}

TEST_CASE("screening: lower is better turns the sign") {
  ScreenConfig c;
  c.min_effect = 0.01;
  c.direction = Direction::lower;
  Screen s = look(c, blocks_of({0, -0.10, 0}, 5));  // candidate 2: 10% less latency
  REQUIRE(s.best);
  CHECK(*s.best == 1);
  CHECK(s.arms[1].effect > 0.09);
}

TEST_CASE("screening: bad values and shapes are errors") {
  ScreenConfig c;
  Screen s;
  std::vector<std::vector<double>> one{{1.0}};
  CHECK_FALSE(screen_look(c, one, s).ok());
  std::vector<std::vector<double>> ragged{{1.0, 2.0}, {1.0}};
  CHECK_FALSE(screen_look(c, ragged, s).ok());
  std::vector<std::vector<double>> zero{{1.0}, {0.0}};
  CHECK_FALSE(screen_look(c, zero, s).ok());
}

TEST_CASE("block order: a permutation of the arms, different across seeds") {
  std::vector<std::size_t> arms{0, 1, 2, 3, 4};
  std::set<std::vector<std::size_t>> seen;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    std::vector<std::size_t> o = block_order(arms, seed);
    std::vector<std::size_t> sorted = o;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == arms);
    seen.insert(o);
    CHECK(block_order(arms, seed) == o);  // deterministic
  }
  CHECK(seen.size() > 30);
}

TEST_CASE("screening: a candidate a guard tripped on goes at that look and never leads") {
  ScreenConfig c;
  c.min_effect = 0.01;
  auto v = blocks_of({0.05, 0.20, 0.0}, 1);
  Screen s = start_screen(3);
  s.arms[1].guard = "tcp_retrans_pct: 0.00% -> 5.00%, limit +0.50%";
  REQUIRE(screen_look(c, v, s).ok());
  REQUIRE(s.arms[1].dropped_at);
  CHECK(*s.arms[1].dropped_at == 1);  // before min_blocks: a guard does not wait
  CHECK(s.arms[1].effect == doctest::Approx(0.20).epsilon(0.05));  // its numbers still shown
  REQUIRE(s.best);
  CHECK(*s.best == 0);
  CHECK_FALSE(s.arms[0].dropped_at);
  CHECK_FALSE(s.done);

  // The race empty after guards: done, with nothing to confirm.
  Screen all = start_screen(2);
  for (ScreenArm& a : all.arms) a.guard = "link_flaps eth0: 0 -> 1 per trial";
  REQUIRE(screen_look(c, blocks_of({0.1, 0.1}, 1), all).ok());
  CHECK(all.done);
  CHECK_FALSE(all.best);
}
