// The plan's bound on the verify loop's time per group (tuner/verify/time_bound.h),
// from a profile as the parser reads it.
#include "tuner/verify/time_bound.h"

#include <doctest/doctest.h>

#include "tuner/plan/plan.h"
#include "tuner/profile/parse.h"

using namespace tuner;
using namespace tuner::verify;
using std::chrono::milliseconds;

namespace {

Profile parse(const std::string& text) {
  auto f = parse_profile_file(text, "t.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  return f->profile;
}

}  // namespace

TEST_CASE("time bound: one run of each kind, as configured or built in") {
  Profile p = parse("[bench.slow]\nkind = \"tcp\"\nduration = \"5s\"\n"
                    "[bench.jitter]\nkind = \"latency\"\ninterval = \"1ms\"\nduration = \"5s\"\n"
                    "[bench.job]\nkind = \"exec\"\ncommand = [\"/bin/true\"]\nmetric = { regex = "
                    "'([0-9.]+)' }\nunit = \"MB/s\"\n"
                    "timeout = \"90s\"\n");
  CHECK(bench_run_bound(p, "tcp") == milliseconds{4000});  // 2 s stream, 1 s rr, 1 s
  CHECK(bench_run_bound(p, "latency") == milliseconds{1500});
  CHECK(bench_run_bound(p, "membw") == milliseconds{3000});
  CHECK(bench_run_bound(p, "slow") == milliseconds{7000});
  CHECK(bench_run_bound(p, "jitter") == milliseconds{5500});
  CHECK(bench_run_bound(p, "job") == milliseconds{90'000});
  CHECK(bench_run_bound(p, "nosuch") == milliseconds{0});
}

TEST_CASE("time bound: a group's trials, a soak's windows, nothing for one left out") {
  Profile p = parse("[verify]\nbench = [\"tcp\", \"latency\"]\nmax_trials = 10\nsoak = \"20s\"\n"
                    "[group.measured]\nkeep_if_neutral = true\n"
                    "[group.soaked]\nbench = []\nkeep_if_neutral = true\n"
                    "[group.peered]\nbench = [\"tcp\"]\npeer = true\n"
                    "[group.dropped]\nbench = []\n");
  // Every benchmark of the group in each run, (4 s + 1.5 s) x 20, and 100 ms of settling
  // after the flip of each.
  CHECK(group_time_bound(p, "measured", 20) == milliseconds{112'000});
  // A value search's worst case is more runs.
  CHECK(group_time_bound(p, "measured", 95) == milliseconds{532'000});
  // Blocked (a channel change): a flip and a wash per block of 3 (14 writes for 20 runs),
  // each waiting up to 10 s for the link to come back, then 2 s of link settle.
  CHECK(group_time_bound(p, "measured", 20, Design::blocked) ==
        milliseconds{110'000 + 14 * 12'000});
  CHECK(group_time_bound(p, "soaked", 20) == milliseconds{40'000});  // before and after
  // A soaked channel change: one write, which waits up to 10 s for the link.
  CHECK(group_time_bound(p, "soaked", 20, Design::blocked) == milliseconds{50'000});
  CHECK(group_time_bound(p, "peered", 20) == milliseconds{82'000});  // with apply --peer
  CHECK(group_time_bound(p, "dropped", 20) == milliseconds{0});
}

TEST_CASE("time bound: a channel change in A/B trials is counted and said; soaked, once") {
  Profile p = parse("[group.trialled]\nbench = [\"tcp\"]\nkeep_if_neutral = true\n"
                    "[group.soaked]\nbench = []\nkeep_if_neutral = true\n");
  Plan plan;
  plan.changes = {{"nic:eth0:channels", "trialled", "combined=32", "combined=8", "r"},
                  {"nic:eth1:channels", "soaked", "combined=32", "combined=8", "r"}};
  plan.groups = {{"soaked", {}, true, false, false, {}, {}},
                 {"trialled", {"tcp"}, true, false, false, {}, {}}};
  fill_time_bounds(p, plan);
  // 80 runs in blocks of 3: 27 flips and 27 washes, each a write that may wait 10 s for
  // the link and then 2 s of settle; 80 runs of 4 s.
  CHECK(plan.groups[1].worst_case == std::chrono::seconds{320 + 54 * 12});
  CHECK(plan.groups[0].worst_case == std::chrono::seconds{70});  // two 30 s windows, one wait
  REQUIRE(plan.notes.size() == 1);
  CHECK(plan.notes[0].find("group trialled changes a port's channels") == 0);
  CHECK(plan.notes[0].find("up to 54 times") != std::string::npos);
}
