// loop_options: what a profile's [verify] hands the loop.
#include "tuner/verify/verified_apply.h"

#include <doctest/doctest.h>

#include "tuner/profile/parse.h"
#include "tuner/verify/benches.h"

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

TEST_CASE("with_peer: a peer group's tcp benchmarks run against --peer, or the soak decides") {
  Profile p = parsed(R"([verify]
bench = ["tcp"]

[bench.short]
kind = "tcp"
peer = "10.9.0.9"
duration = "300ms"

[group.nic]
peer = true

[group.nic2]
peer = true
bench = ["short", "membw"]

[group.host]
)");
  CHECK(p.groups.at("nic").peer);
  CHECK_FALSE(p.groups.at("host").peer);
  std::vector<std::string> notes;
  const bench::tcp::PeerKey key{"the rollout's key, 32 bytes long"};
  Profile with = with_peer(p, {"nic", "nic2", "host"}, "10.0.0.2", key, notes);
  CHECK(notes.empty());
  CHECK(bench_names_for(with, "nic") == std::vector<std::string>{"tcp@peer"});
  CHECK(bench_names_for(with, "nic2") == std::vector<std::string>{"short@peer", "membw"});
  CHECK(bench_names_for(with, "host") == std::vector<std::string>{"tcp"});  // untouched
  const BenchSpec& s = with.benches.at("short@peer");
  CHECK(s.tcp.placement == bench::TcpConfig::Placement::peer);
  CHECK(s.tcp.address == "10.0.0.2");
  CHECK(s.tcp.duration == std::chrono::milliseconds(300));  // the rest as written
  CHECK(with.benches.at("tcp@peer").tcp.address == "10.0.0.2");
  CHECK(s.tcp.key.secret == key.secret);  // the server must prove the rollout's key
  CHECK(with.benches.at("tcp@peer").tcp.key.secret == key.secret);
  CHECK(with.benches.at("short").tcp.key.secret == key.secret);  // the profile's own peer too
  CHECK(with.benches.count("short") == 1);  // the original stays for other groups
  // Only the groups this node measures are rewritten.
  Profile some = with_peer(p, {"host"}, "10.0.0.2", key, notes);
  CHECK(bench_names_for(some, "nic") == std::vector<std::string>{"tcp"});

  // No peer: the soak decides, and the report says why.
  Profile alone = with_peer(p, {"nic", "nic2", "host"}, "", {}, notes);
  CHECK(bench_names_for(alone, "nic").empty());
  CHECK(alone.groups.at("nic").keep_if_neutral);
  CHECK(bench_names_for(alone, "host") == std::vector<std::string>{"tcp"});
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] ==
        "group nic needs a peer (peer = true) and apply has no --peer: loopback cannot see it, "
        "so the guard soak alone decides it");
}

TEST_CASE("with_peer: peer must be a boolean") {
  auto bad = parse_profile_file("[group.nic]\npeer = \"yes\"\n", "t.toml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("'peer' in [group.nic]") != std::string::npos);
}
