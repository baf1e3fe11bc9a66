// group_decider: what decides each group, as the plan shows it and verified_apply acts.
#include "tuner/profile/group_policy.h"

#include <doctest/doctest.h>

#include "tuner/profile/merge.h"
#include "tuner/profile/parse.h"

using namespace tuner;

namespace {

Profile parsed(std::string_view text) {
  auto f = parse_profile_file(text, "t.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  return f->profile;
}

}  // namespace

TEST_CASE("group_decider: benchmarks here, a peer's, the soak, or left out") {
  Profile p = parsed(R"([verify]
bench = ["tcp"]

[bench.far]
kind = "tcp"
peer = "10.9.0.9"

[bench.script]
kind = "exec"
command = ["/usr/bin/fio", "--name=x"]
metric = { regex = '([0-9.]+)' }
unit = "MB/s"

[group.plain]
keep_if_neutral = false

[group.nic]
peer = true
keep_if_neutral = true

[group.timers]
bench = ["latency", "tcp"]
peer = true

[group.fixed]
bench = ["far"]

[group.inside]
bench = ["far", "script"]
keep_if_neutral = true

[group.disk]
bench = ["script"]

[group.irq]
bench = []
keep_if_neutral = true

[group.napi]
bench = []

[group.busypoll]
chosen = true
bisect = true
)");
  GroupDecider d = group_decider(p, "plain");
  CHECK(d.by == Decider::benchmark);
  CHECK(d.bench == "tcp");
  CHECK(d.where == "loopback");
  CHECK(decided_by_text(d) == "benchmark tcp (loopback); kept only on a proven gain");
  // A group the profile has no table for: [verify]'s benchmark, gain only.
  CHECK(decided_by_text(group_decider(p, "sysctl")) == decided_by_text(d));

  d = group_decider(p, "nic");
  CHECK(d.by == Decider::peer_benchmark);
  CHECK(d.bench == "tcp@peer");  // the name verified_apply's with_peer gives it
  CHECK(d.where == "apply --peer");
  CHECK(decided_by_text(d) ==
        "a peer benchmark: tcp@peer (apply --peer), kept unless it proves harm; without --peer "
        "the guard soak on the node's traffic: kept unless it proves harm (no traffic: "
        "undecided, kept as chosen)");

  // A peer group whose first benchmark is not tcp: that one decides, the tcp one runs
  // against the peer as a watch; without --peer the soak all the same.
  d = group_decider(p, "timers");
  CHECK(d.by == Decider::peer_benchmark);
  CHECK(d.bench == "latency");
  CHECK(d.where == "this node");
  CHECK(d.watches == std::vector<std::string>{"tcp@peer"});

  d = group_decider(p, "fixed");
  CHECK(d.by == Decider::benchmark);
  CHECK(d.where == "peer 10.9.0.9");

  d = group_decider(p, "inside");
  CHECK(decided_by_text(d) ==
        "benchmark far (peer 10.9.0.9), watching script; kept unless it proves harm");
  CHECK(group_decider(p, "disk").where == "this node: /usr/bin/fio");

  d = group_decider(p, "irq");
  CHECK(d.by == Decider::guard_soak);
  CHECK(d.bench.empty());
  CHECK(decided_by_text(d) == "the guard soak on the node's traffic: kept unless it proves harm "
                              "(no traffic: undecided, kept as chosen)");
  d = group_decider(p, "napi");
  CHECK(d.by == Decider::left_out);
  CHECK(decided_by_text(d) ==
        "nothing measures it: left out when verifying (no benchmark, no keep_if_neutral)");

  // chosen: soaked like the irq group above ([verify]'s tcp not run), but said honestly.
  d = group_decider(p, "busypoll");
  CHECK(d.by == Decider::chosen);
  CHECK(d.bench.empty());
  CHECK(d.keep_if_neutral);
  CHECK(decided_by_text(d) ==
        "kept as chosen: nothing here measures what it gains or costs; the guard soak rolls it "
        "back only if the node's network errors rise");
  GroupPolicy busypoll = group_policy(p, "busypoll");
  CHECK(busypoll.bench.empty());
  CHECK(busypoll.keep_if_neutral);
  CHECK(busypoll.bisect);

  for (Decider x : {Decider::benchmark, Decider::peer_benchmark, Decider::guard_soak,
                    Decider::left_out, Decider::chosen})
    CHECK(parse_decider(decider_name(x)) == x);
  CHECK_FALSE(parse_decider("loopback"));
}

TEST_CASE("group_decider: a chosen group stays chosen across an include, until restated") {
  Profile base = parsed("[group.vm]\nchosen = true\n");
  Profile child = parsed("[group.vm]\nsoak = \"10s\"\n");
  merge_into(base, child);
  CHECK(group_decider(base, "vm").by == Decider::chosen);
  CHECK(group_policy(base, "vm").soak == std::chrono::seconds{10});
  Profile undo = parsed("[group.vm]\nchosen = false\nbench = [\"tcp\"]\n");
  merge_into(base, undo);
  CHECK(group_decider(base, "vm").by == Decider::benchmark);
}
