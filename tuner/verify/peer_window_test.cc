// A group raising this node's tcp_rmem maximum, decided by a tcp benchmark with the peer
// sending: the peer's tcp_wmem maximum decides whether the benchmark can load it, and a
// peer below is not measured against: the group is soaked (profiles/REVIEW.md W-2).
#include <doctest/doctest.h>

#include "tuner/profile/group_policy.h"
#include "tuner/verify/peer_window.h"
#include "tuner/verify/time_bound.h"
#include "tuner/verify/verified_apply.h"

using namespace tuner;
using namespace tuner::verify;

namespace {

constexpr uint64_t k256M = 268435456, k4M = 4194304;

/// wan-throughput's shape: [bench.wan] tcp, direction in; [group.sysctl] peer = true.
Profile wan_profile(bench::StreamDirection direction = bench::StreamDirection::in) {
  Profile p;
  p.name = "wan";
  BenchSpec wan;
  wan.name = "wan";
  wan.kind = BenchSpec::Kind::tcp;
  wan.tcp.name = "wan";
  wan.tcp.streams = 4;
  wan.tcp.direction = direction;
  p.benches["wan"] = wan;
  GroupSettings g;
  g.name = "sysctl";
  g.bench = std::vector<std::string>{"wan"};
  g.peer = true;
  g.keep_if_neutral = true;
  p.groups["sysctl"] = g;
  return p;
}

Plan rmem_plan(std::optional<std::string> current, std::string desired) {
  Plan plan;
  plan.changes.push_back(
      {"sysctl:net.ipv4.tcp_rmem", "sysctl", std::move(current), std::move(desired), "raise"});
  plan.changes.push_back(
      {"sysctl:net.ipv4.tcp_wmem", "sysctl", "4096 16384 4194304", "4096 16384 268435456", ""});
  return plan;
}

ServerFactsFn fixed(std::optional<uint64_t> wmem, unsigned* asked = nullptr) {
  return [=](const bench::TcpConfig&) -> Result<bench::tcp::ServerFacts> {
    if (asked) ++*asked;
    return bench::tcp::ServerFacts{wmem, !wmem};
  };
}

const Plan kRaise = rmem_plan("4096\t131072\t6291456", "4096 131072 268435456");

}  // namespace

TEST_CASE("peer window: a direction-in peer group raising tcp_rmem's maximum needs it") {
  Profile p = wan_profile();
  auto need = peer_window_need(p, kRaise, "sysctl");
  REQUIRE(need);
  CHECK(need->rmem_max == k256M);
  CHECK(need->bench == "wan");
  // As with_peer names the copy, the same need.
  std::vector<std::string> notes;
  Profile copied = with_peer(p, {"sysctl"}, "10.0.0.2", {}, notes);
  auto need2 = peer_window_need(copied, kRaise, "sysctl");
  REQUIRE(need2);
  CHECK(need2->bench == "wan@peer");
  // An unreadable current value may be below: needed.
  CHECK(peer_window_need(p, rmem_plan(std::nullopt, "4096 131072 268435456"), "sysctl"));
}

TEST_CASE("peer window: no need where the peer is not the sender or nothing is raised") {
  CHECK_FALSE(peer_window_need(wan_profile(bench::StreamDirection::out), kRaise, "sysctl"));
  // tcp_rmem's maximum unchanged (only the default raised): nothing to load.
  CHECK_FALSE(peer_window_need(
      wan_profile(), rmem_plan("4096 87380 268435456", "4096 131072 268435456"), "sysctl"));
  Profile loopback = wan_profile();
  loopback.groups["sysctl"].peer = false;  // loopback: this node sends to itself
  CHECK_FALSE(peer_window_need(loopback, kRaise, "sysctl"));
  Profile fixed_peer = loopback;  // a [bench.NAME] of its own with placement peer
  fixed_peer.benches["wan"].tcp.placement = bench::TcpConfig::Placement::peer;
  CHECK(peer_window_need(fixed_peer, kRaise, "sysctl"));
  Profile soaked = wan_profile();
  soaked.groups["sysctl"].bench = std::vector<std::string>{};
  CHECK_FALSE(peer_window_need(soaked, kRaise, "sysctl"));
  CHECK_FALSE(peer_window_need(wan_profile(), kRaise, "other"));
}

TEST_CASE("peer window: below the candidate is too small, at it fits, unsaid is unknown") {
  PeerWindowNeed need{"sysctl", "wan@peer", k256M};
  CHECK(peer_window_fit(need, k4M) == PeerWindowFit::too_small);
  CHECK(peer_window_fit(need, k256M - 1) == PeerWindowFit::too_small);
  CHECK(peer_window_fit(need, k256M) == PeerWindowFit::fits);
  CHECK(peer_window_fit(need, std::nullopt) == PeerWindowFit::unknown);
  CHECK(peer_window_note(need, k256M, PeerWindowFit::fits).empty());
  std::string small = peer_window_note(need, k4M, PeerWindowFit::too_small);
  CHECK(small.find("the peer's net.ipv4.tcp_wmem maximum is 4194304 (4 MiB), below this node's "
                   "candidate tcp_rmem maximum 268435456 (256 MiB)") != std::string::npos);
  CHECK(small.find("guard soak decides the group instead") != std::string::npos);
  CHECK(peer_window_note(need, std::nullopt, PeerWindowFit::unknown).find("did not report") !=
        std::string::npos);
}

TEST_CASE("peer window: a peer with a small tcp_wmem makes the group a soaked one") {
  // Two groups of this shape, one benchmark: the peer is asked once.
  Profile two = wan_profile();
  two.groups["other"] = two.groups["sysctl"];
  two.groups["other"].name = "other";
  Plan plan = kRaise;
  plan.changes.push_back(plan.changes.front());
  plan.changes.back().group = "other";
  std::vector<std::string> notes;
  Profile p = with_peer(two, {"sysctl", "other"}, "10.0.0.2", {}, notes);
  REQUIRE(group_decider(p, "sysctl").by == Decider::peer_benchmark);
  unsigned asked = 0;
  auto checks = check_peer_windows(p, plan, {"sysctl", "other"}, fixed(k4M, &asked));
  REQUIRE(checks.ok());
  CHECK(asked == 1);
  REQUIRE(checks->size() == 2);
  CHECK((*checks)[0].fit == PeerWindowFit::too_small);
  CHECK((*checks)[1].fit == PeerWindowFit::too_small);
  CHECK(group_decider(p, "other").by == Decider::guard_soak);
  // Asked again (a second look), a soaked group has no need left: nothing to say.
  auto again = check_peer_windows(p, plan, {"sysctl"}, fixed(k4M));
  REQUIRE(again.ok());
  CHECK(again->empty());
  // Decided as a bench = [] group: the guard soak, kept unless harmed.
  GroupDecider d = group_decider(p, "sysctl");
  CHECK(d.by == Decider::guard_soak);
  CHECK(d.keep_if_neutral);
  CHECK(group_policy(p, "sysctl").bench.empty());
}

TEST_CASE("peer window: a large enough or unknown peer leaves the benchmark deciding") {
  for (std::optional<uint64_t> wmem : {std::optional<uint64_t>(k256M), std::optional<uint64_t>()}) {
    std::vector<std::string> notes;
    Profile p = with_peer(wan_profile(), {"sysctl"}, "10.0.0.2", {}, notes);
    auto checks = check_peer_windows(p, kRaise, {"sysctl"}, fixed(wmem));
    REQUIRE(checks.ok());
    REQUIRE(checks->size() == 1);
    CHECK((*checks)[0].fit == (wmem ? PeerWindowFit::fits : PeerWindowFit::unknown));
    CHECK((*checks)[0].note.empty() == wmem.has_value());  // unknown: a warning
    CHECK(group_decider(p, "sysctl").by == Decider::peer_benchmark);
    CHECK(group_policy(p, "sysctl").bench == std::vector<std::string>{"wan@peer"});
  }
}

TEST_CASE("peer window: a peer that cannot be asked is an error before anything changes") {
  std::vector<std::string> notes;
  Profile p = with_peer(wan_profile(), {"sysctl"}, "10.0.0.2", {}, notes);
  auto checks = check_peer_windows(p, kRaise, {"sysctl"}, [](const bench::TcpConfig&) {
    return Result<bench::tcp::ServerFacts>(Error::io("cannot connect", "10.0.0.2:5301"));
  });
  REQUIRE_FALSE(checks.ok());
  CHECK(checks.error().message().find("benchmark 'wan@peer' cannot run here") != std::string::npos);
}

TEST_CASE("plan: a peer group's wide-area volume and what the peer must send with") {
  Profile p = wan_profile();
  p.benches["wan"].tcp.duration = std::chrono::seconds(5);
  p.verify.max_trials = 20;
  auto traffic = peer_traffic(p, "sysctl", 40);
  REQUIRE(traffic.size() == 1);
  CHECK(traffic[0].bench == "wan@peer");
  CHECK(traffic[0].direction == "in");
  CHECK(traffic[0].runs == 40);
  CHECK(traffic[0].run == std::chrono::seconds(5));
  CHECK(traffic[0].streams == 4);
  Plan plan = kRaise;
  plan.groups.push_back(
      PlanGroup{"sysctl", {"wan"}, true, false, true, group_decider(p, "sysctl")});
  fill_time_bounds(p, plan);
  REQUIRE(plan.groups[0].peer_traffic.size() == 1);
  CHECK(plan.groups[0].peer_traffic[0].runs == 40);  // 2 x max_trials
  CHECK(plan.groups[0].peer_wmem_needed == k256M);
  // Loopback moves nothing across a path; a soaked group runs no benchmark at all.
  Profile loopback = wan_profile();
  loopback.groups["sysctl"].peer = false;
  CHECK(peer_traffic(loopback, "sysctl", 40).empty());
}
