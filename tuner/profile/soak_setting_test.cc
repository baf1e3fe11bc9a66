// [verify] soak and [group.NAME] soak: the guard soak's window (tuner/verify/soak.h).
#include <doctest/doctest.h>

#include "tuner/profile/group_policy.h"
#include "tuner/profile/merge.h"
#include "tuner/profile/parse.h"

using namespace tuner;
using namespace std::chrono_literals;

TEST_CASE("profile: soak defaults to 30 s, [verify] sets it, a group overrides it") {
  auto none = parse_profile_file("[verify]\nmin_effect = 0.02\n", "s.toml");
  REQUIRE_MESSAGE(none.ok(), none.error().message());
  CHECK(none->profile.verify.soak == 30s);

  auto f = parse_profile_file(
      "[verify]\nsoak = \"5s\"\n\n[group.irq]\nbench = []\nkeep_if_neutral = true\n"
      "soak = \"0s\"\n\n[group.napi]\nbench = []\n",
      "s.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  CHECK(f->profile.verify.soak == 5s);
  CHECK(group_policy(f->profile, "irq").soak == 0ms);
  CHECK(group_policy(f->profile, "napi").soak == 5s);
  CHECK(group_policy(f->profile, "other").soak == 5s);
}

TEST_CASE("profile: a soak that is not a duration up to 10 minutes names where") {
  for (const char* bad : {"\"30\"", "\"-1s\"", "\"11m\"", "30", "\"1h\""}) {
    auto f = parse_profile_file(std::string("[verify]\nsoak = ") + bad + "\n", "s.toml");
    REQUIRE_FALSE(f.ok());
    CHECK_MESSAGE(f.error().message().find("s.toml:2:") != std::string::npos, f.error().message());
  }
  auto g = parse_profile_file("[group.irq]\nsoak = \"2x\"\n", "g.toml");
  REQUIRE_FALSE(g.ok());
  CHECK_MESSAGE(g.error().message().find("'soak' in [group.irq] = \"2x\": expected a duration") !=
                    std::string::npos,
                g.error().message());
}

TEST_CASE("profile: an include overrides soak only where it is set") {
  auto parent = parse_profile_file(
      "[verify]\nsoak = \"10s\"\n\n[group.irq]\nbench = []\nsoak = \"3s\"\n", "p.toml");
  auto child = parse_profile_file("[verify]\nmin_effect = 0.03\n\n[group.irq]\nkeep_if_neutral = "
                                  "true\n",
                                  "c.toml");
  REQUIRE(parent.ok());
  REQUIRE(child.ok());
  Profile merged = parent->profile;
  merge_into(merged, child->profile);
  CHECK(merged.verify.soak == 10s);
  CHECK(group_policy(merged, "irq").soak == 3s);
  auto later = parse_profile_file("[verify]\nsoak = \"0s\"\n", "l.toml");
  REQUIRE(later.ok());
  merge_into(merged, later->profile);
  CHECK(merged.verify.soak == 0ms);
  CHECK(group_policy(merged, "irq").soak == 3s);
}
