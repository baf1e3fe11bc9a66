// loop_options: what a profile's [verify] hands the loop.
#include "tuner/verify/verified_apply.h"

#include <doctest/doctest.h>

#include "tests/support/files.h"
#include "tuner/profile/parse.h"
#include "tuner/verify/benches.h"
#include "tuner/verify/loop_rig_test.h"

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

TEST_CASE("decision_order: gain-only groups first, then neutral keeps, then the rest") {
  using U = BudgetUse;
  CHECK(decision_order({{"irq", U::neutral},
                        {"vm", U::no_trials},
                        {"sysctl", U::gain_only},
                        {"channels", U::neutral},
                        {"cpu", U::gain_only}}) ==
        std::vector<std::string>{"sysctl", "cpu", "irq", "channels", "vm"});
  CHECK(decision_order({}).empty());
}

namespace {

/// A profile of two measured groups, in plan order: "placement" kept unless harmed (it
/// would use every trial: only harm stops it early) and "buffers" kept only on a gain;
/// each knob is measured by a shell command printing 10000 to 10255 (no effect: the
/// gain-only group ends no_gain within a few looks).
const char* kTwoGroups = R"t([verify]
bench = ["noise"]
min_effect = 0.02
max_trials = 40

[bench.noise]
kind = "exec"
command = ["/bin/sh", "-c", "echo $((10000 + $(od -An -N1 -tu1 /dev/urandom)))"]
metric = { regex = '([0-9]+)' }
unit = "ops/s"

[group.placement]
members = ["sysctl:t.a"]
keep_if_neutral = true

[group.buffers]
members = ["sysctl:t.b"]
keep_if_neutral = false
)t";

}  // namespace

TEST_CASE("apply_verified: a neutral-keep group cannot starve a gain-only one of the budget") {
  // Before, groups were decided in plan order: "placement" ran its 80 trials, spent the
  // budget (the settling pauses advance the fake clock 100 ms a flip) and "buffers" was
  // rolled back as `budget` without a trial.
  loop_test::Rig rig({"sysctl:t.a", "sysctl:t.b"});
  testing::write_file(rig.root_dir() + "/proc/net/snmp",
                      "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens "
                      "AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs "
                      "OutRsts InCsumErrors\nTcp: 1 200 120000 -1 18 4 0 2 0 42026 100 0 0 3 0\n");
  Profile p = parsed(kTwoGroups);
  Plan plan;
  plan.profiles = {"test"};
  plan.changes = {{"sysctl:t.a", "placement", std::string("default"), "tuned", ""},
                  {"sysctl:t.b", "buffers", std::string("default"), "tuned", ""}};
  VerifiedApplyOptions o;
  o.loop.budget = std::chrono::seconds(6);
  o.loop.seed = 7;
  auto r = apply_verified(plan, p, Inventory{}, rig.dir, rig.factory(), rig.root, rig.clock, o);
  REQUIRE_MESSAGE(r.ok(), r.error().message());
  REQUIRE(r->report.groups.size() == 2);
  // The report keeps plan order.
  CHECK(r->report.groups[0].name == "placement");
  CHECK(r->report.groups[1].name == "buffers");
  auto buffers = outcome_from_json(r->report.groups[1].stats);
  auto placement = outcome_from_json(r->report.groups[0].stats);
  REQUIRE(buffers.ok());
  REQUIRE(placement.ok());
  INFO(r->report.groups[1].stats.dump());
  INFO(r->report.groups[0].stats.dump());
  // The gain-only group was measured: not rolled back untried for the budget.
  REQUIRE(buffers->measured);
  CHECK(buffers->measured->trials_baseline >= 5);
  CHECK(buffers->reason != Reason::budget);
  CHECK_FALSE(buffers->time_cap);
  // The neutral keep got what was left, all of it (the only one), and stopped there.
  REQUIRE(placement->time_cap);
  CHECK(placement->time_cap->seconds > 0);
  CHECK(placement->time_cap->seconds < 6);
  CHECK(placement->time_cap->reached);
  CHECK(placement->decision == GroupDecision::kept);
  CHECK(placement->reason == Reason::neutral_kept);
  CHECK(to_json(*placement)["time_cap"]["reached"] == true);
}

TEST_CASE("apply_verified: neutral-keep groups share what the budget has left") {
  loop_test::Rig rig({"sysctl:t.a", "sysctl:t.b", "sysctl:t.c"});
  testing::write_file(rig.root_dir() + "/proc/net/snmp",
                      "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens "
                      "AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs "
                      "OutRsts InCsumErrors\nTcp: 1 200 120000 -1 18 4 0 2 0 42026 100 0 0 3 0\n");
  Profile p = parsed(std::string(kTwoGroups) +
                     "\n[group.queues]\nmembers = [\"sysctl:t.c\"]\nkeep_if_neutral = true\n");
  Plan plan;
  plan.profiles = {"test"};
  plan.changes = {{"sysctl:t.a", "placement", std::string("default"), "tuned", ""},
                  {"sysctl:t.c", "queues", std::string("default"), "tuned", ""}};
  VerifiedApplyOptions o;
  o.loop.budget = std::chrono::seconds(4);
  auto r = apply_verified(plan, p, Inventory{}, rig.dir, rig.factory(), rig.root, rig.clock, o);
  REQUIRE_MESSAGE(r.ok(), r.error().message());
  REQUIRE(r->report.groups.size() == 2);
  auto first = outcome_from_json(r->report.groups[0].stats);
  auto second = outcome_from_json(r->report.groups[1].stats);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  REQUIRE(first->time_cap);
  REQUIRE(second->time_cap);
  // Half of the 4 s for the first (less the 100 ms the first write settles before it),
  // what is left (about the other half) for the second: both measured, neither untried.
  CHECK(first->time_cap->seconds > 1.9);
  CHECK(first->time_cap->seconds <= 2.0);
  CHECK(second->time_cap->seconds > 1.5);
  REQUIRE(first->measured);
  REQUIRE(second->measured);
  CHECK(first->measured->trials_baseline >= 5);
  CHECK(second->measured->trials_baseline >= 5);
}

TEST_CASE("design_for_knobs: what resets a link or a device flips in blocks") {
  CHECK(design_for_knobs({"sysctl:net.core.somaxconn", "irq:0000:5e:00.0/msi1:affinity"}) ==
        Design::interleaved);
  CHECK(design_for_knobs({"nic:eth0:xps:tx-0", "nic:eth0:rfs:rx-0"}) == Design::interleaved);
  for (const char* knob : {"nic:eth0:link", "nic:eth0:mtu", "nic:eth0:channels", "nic:eth0:rings"})
    CHECK_MESSAGE(design_for_knobs({"nic:eth0:xps:tx-0", knob}) == Design::blocked, knob);
}
