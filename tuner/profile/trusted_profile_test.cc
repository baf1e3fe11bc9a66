// Profiles root would load from places another user can write: a profile, an included
// file or a directory above them chowned to nobody (uid 65534) in a private temp dir.
// Each is refused with the path and the owner; a planted profile never wins automatic
// selection. Root only (chown; for other users nothing is checked, by design).
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>

#include "tests/support/temp_dir.h"
#include "tuner/profile/match.h"
#include "tuner/profile/profile.h"

using namespace tuner;

namespace {

constexpr uid_t kNobody = 65534;
const char* const kOwner = "owned by uid 65534 (nobody)";

bool as_root() {
  if (::geteuid() == 0) return true;
  MESSAGE("skipped: needs root (chown; the check only applies to root)");
  return false;
}

void give_to_nobody(const std::string& path) {
  REQUIRE(::chown(path.c_str(), kNobody, kNobody) == 0);
}

// Wins automatic selection on any machine with a NUMA node: more conditions than none.
const char* const kPlanted = "[profile]\ndescription = \"planted\"\n[match]\nnuma_nodes = \">=1\"\n"
                             "[sysctl]\n\"kernel.core_pattern\" = \"|/tmp/x %p\"\n";

}  // namespace

TEST_CASE("trusted profiles: a profile or directory of another user is refused as root") {
  if (!as_root()) return;
  testing::TempDir tmp;
  std::string mine = tmp.write("mine.toml", "[profile]\nname = \"mine\"\n");
  REQUIRE(load_profile(mine, {}).ok());

  SUBCASE("the profile file") {
    std::string f = tmp.write("planted.toml", kPlanted);
    give_to_nobody(f);
    auto p = load_profile(f, {});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message().find(f + ": profile is " + kOwner) == 0);
  }
  SUBCASE("a directory above it, found by name in the search path") {
    std::string f = tmp.write("theirs/planted.toml", kPlanted);
    give_to_nobody(tmp / "theirs");
    auto p = load_profile("planted", {tmp / "theirs"});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message().find("directory " + tmp / "theirs" + " above the profile is " +
                                   kOwner) != std::string::npos);
    CHECK(p.error().message().find(f) != std::string::npos);
  }
  SUBCASE("an included file") {
    std::string parent = tmp.write("parent.toml", "[sysctl]\n\"vm.swappiness\" = 1\n");
    give_to_nobody(parent);
    std::string child = tmp.write("child.toml", "[profile]\ninclude = [\"parent\"]\n");
    auto p = load_profile(child, {});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message().find(parent + ": profile is " + kOwner) != std::string::npos);
    CHECK(p.error().message().find("included from " + child) != std::string::npos);
  }
  SUBCASE("a profile anyone may write") {
    std::string f = tmp.write("loose.toml", kPlanted);
    REQUIRE(::chmod(f.c_str(), 0666) == 0);
    auto p = load_profile(f, {});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message().find("group- or world-writable (mode 0666)") != std::string::npos);
  }
}

TEST_CASE("trusted profiles: a planted profile with a [match] never wins automatic selection") {
  if (!as_root()) return;
  testing::TempDir tmp;
  tmp.write("ours/balanced.toml", "[profile]\nname = \"balanced\"\n");
  std::string planted = tmp.write("theirs/aaa-planted.toml", kPlanted);
  Inventory inv;
  inv.topology.numa_nodes.push_back(NumaNode{0, {}, {}, {}});
  // Root's own copy would win: the test proves the [match] holds on this inventory.
  std::string own = tmp.write("own/aaa-planted.toml", kPlanted);
  auto wins = best_profile({tmp / "own", tmp / "ours"}, inv);
  REQUIRE(wins.ok());
  REQUIRE(*wins == "aaa-planted");

  give_to_nobody(planted);
  std::vector<Error> broken;
  auto best = best_profile({tmp / "theirs", tmp / "ours"}, inv, &broken);
  REQUIRE(best.ok());
  CHECK(*best == "balanced");
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].message().find(planted + ": profile is " + kOwner) == 0);
}
