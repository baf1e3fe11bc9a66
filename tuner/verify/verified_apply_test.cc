// loop_options: what a profile's [verify] hands the loop.
#include "tuner/verify/verified_apply.h"

#include <doctest/doctest.h>

#include "tuner/profile/parse.h"

using namespace tuner;
using namespace tuner::verify;

namespace {

Profile parsed(std::string_view text) {
  auto f = parse_profile_file(text, "t.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  return f->profile;
}

}  // namespace

TEST_CASE("loop_options: [verify] fields reach the loop, watch_margin included") {
  Profile p = parsed("[verify]\nmin_effect = 0.03\nfalse_keep_rate = 0.02\nmax_trials = 25\n"
                     "soak = \"5s\"\nwatch_margin = 0.07\n");
  Inventory inv;
  Nic phys, veth;
  phys.name = "eth9";
  veth.name = "veth0";
  veth.is_virtual = true;
  inv.nics = {phys, veth};
  LoopOptions o = loop_options(p, inv, Plan{}, LoopOptions{});
  CHECK(o.decision.min_effect == doctest::Approx(0.03));
  CHECK(o.decision.false_keep_rate == doctest::Approx(0.02));
  CHECK(o.decision.max_trials == 25u);
  CHECK(o.soak == std::chrono::seconds(5));
  CHECK(o.watch_margin == doctest::Approx(0.07));
  CHECK(o.guard_interfaces == std::vector<std::string>{"eth9"});
}

TEST_CASE("loop_options: without watch_margin the loop falls back to min_effect") {
  LoopOptions o = loop_options(parsed("[verify]\nmin_effect = 0.03\n"), Inventory{}, Plan{}, {});
  CHECK(o.watch_margin < 0);  // loop.cc: negative means decision.min_effect
}
