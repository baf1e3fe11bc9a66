#include "tuner/verify/soak.h"

#include <filesystem>
#include <functional>

#include <doctest/doctest.h>
#include <fmt/core.h>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/verify/loop_rig_test.h"

using namespace tuner;
using namespace tuner::verify;

namespace {

/// A node whose counters move while the clock sleeps: `segs` segments per second, of
/// which `retrans` (a fraction) are retransmitted; `packets` per second through eth0.
struct Node {
  std::string path;
  uint64_t out_segs = 1000, retrans_segs = 10, packets = 500, carrier = 2;
  double segs_per_s = 2000, retrans = 0.001, packets_per_s = 1000, flaps_per_s = 0;
  /// When set, the retransmit rate now (it may read the machine's knobs).
  std::function<double()> retrans_now;
  explicit Node(std::string dir) : path(std::move(dir)) {
    std::filesystem::create_directories(path + "/proc/net");
    std::filesystem::create_directories(path + "/sys/class/net/eth0");
    write();
  }
  void write() const {
    testing::write_file(
        path + "/proc/net/snmp",
        fmt::format("Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens "
                    "AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts "
                    "InCsumErrors\nTcp: 1 200 120000 -1 18 4 0 2 0 42026 {} {} 0 3 0\n",
                    out_segs, retrans_segs));
    testing::write_file(
        path + "/proc/net/dev",
        fmt::format("Inter-|   Receive                                                |  Transmit\n"
                    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
                    "packets errs drop fifo colls carrier compressed\n"
                    "  eth0: 100 {} 0 0 0 0 0 0 100 {} 0 0 0 0 0 0\n",
                    packets, packets));
    testing::write_file(path + "/sys/class/net/eth0/carrier_changes", fmt::format("{}\n", carrier));
  }
  void run_for(Clock::duration d) {
    double s = std::chrono::duration<double>(d).count();
    auto segs = static_cast<uint64_t>(segs_per_s * s);
    out_segs += segs;
    retrans_segs +=
        static_cast<uint64_t>(static_cast<double>(segs) * (retrans_now ? retrans_now() : retrans));
    packets += static_cast<uint64_t>(packets_per_s * s);
    carrier += static_cast<uint64_t>(flaps_per_s * s);
    write();
  }
};

/// A clock on which sleeping lets the node run.
class NodeClock final : public Clock {
 public:
  explicit NodeClock(Node& n) : n_(n) {}
  time_point now() override { return now_; }
  void sleep_for(duration d) override {
    now_ += d;
    slept_ += d;
    n_.run_for(d);
  }
  duration slept_{0};

 private:
  Node& n_;
  time_point now_{};
};

SoakOptions options(std::chrono::milliseconds window = std::chrono::seconds(30)) {
  SoakOptions o;
  o.window = window;
  o.limits.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
  o.interfaces = {"eth0"};
  return o;
}

}  // namespace

TEST_CASE("soak: retransmits that rise after the write trip the guard") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  int writes = 0;
  auto r = soak_group(*root, clock, options(), [&]() -> Status {
    ++writes;
    node.retrans = 0.03;  // the change: 0.1% -> 3%
    return Ok{};
  });
  REQUIRE(r.ok());
  CHECK(writes == 1);
  CHECK(clock.slept_ == std::chrono::seconds(60));
  CHECK(r->ran);
  CHECK(r->traffic);
  CHECK(r->tripped);
  CHECK(r->note.empty());
  CHECK(tripped_text(*r).find("tcp_retrans_pct: 0.10% -> 3.00%, limit +0.50%") == 0);
  const nlohmann::json& j = r->json;
  CHECK(j["decision"] == "tripped");
  CHECK(j["window_s"] == 30.0);
  CHECK(j["windows"]["before"]["seconds"] == 30.0);
  CHECK(j["windows"]["before"]["tcp"]["out_segs"] == 60000);
  CHECK(j["windows"]["before"]["tcp"]["retrans_segs"] == 60);
  CHECK(j["windows"]["after"]["tcp"]["retrans_segs"] == 1800);
  CHECK(j["windows"]["after"]["interfaces"]["eth0"]["packets"] == 60000);
  CHECK(j["guards"][0]["metric"] == "tcp_retrans_pct");
  CHECK(j["guards"][0]["source"] == "namespace");
  CHECK(j["guards"][0]["tripped"] == true);
}

TEST_CASE("soak: the same traffic after a harmless write passes") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(), [] { return Status(Ok{}); });
  REQUIRE(r.ok());
  CHECK_FALSE(r->tripped);
  CHECK(r->traffic);
  CHECK(r->json["decision"] == "passed");
  CHECK_FALSE(r->json.contains("note"));
}

TEST_CASE("soak: a link that starts flapping after the write trips link_flaps") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(), [&]() -> Status {
    node.flaps_per_s = 0.5;  // 15 carrier changes in the window
    return Ok{};
  });
  REQUIRE(r.ok());
  CHECK(r->tripped);
  CHECK(tripped_text(*r).find("link_flaps eth0: 0 -> 15 per trial") == 0);
}

TEST_CASE("soak: with no traffic it says so and judges nothing it cannot see") {
  testing::TempDir tmp;
  Node node(tmp.path);
  node.segs_per_s = node.packets_per_s = 0;
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(std::chrono::seconds(5)), [] { return Status(Ok{}); });
  REQUIRE(r.ok());
  CHECK_FALSE(r->traffic);
  CHECK_FALSE(r->tripped);
  CHECK(r->note ==
        "no traffic on eth0 during the soak (fewer than 500 packets and 1000 TCP segments in a "
        "window): undecided, nothing judged");
  CHECK(r->json["decision"] == "no_traffic");
  CHECK(r->json["note"] == r->note);
  CHECK(r->json["window_s"] == 5.0);
  CHECK(r->json["min_traffic"]["packets"] == 500);
  CHECK(r->json["min_traffic"]["tcp_segments"] == 1000);
}

TEST_CASE("soak: ARP and LLDP on an idle node are not workload traffic: undecided") {
  // A node being provisioned: no workload yet, only a few broadcast frames a second
  // through eth0 and a little TCP of its own (ssh, a config agent). Before, any packet
  // on a watched interface made this a "passed" soak.
  testing::TempDir tmp;
  Node node(tmp.path);
  node.packets_per_s = 5;
  node.segs_per_s = 10;
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(), [] { return Status(Ok{}); });
  REQUIRE(r.ok());
  CHECK_FALSE(r->traffic);
  CHECK_FALSE(r->tripped);
  CHECK(r->json["decision"] == "no_traffic");
  CHECK(r->note.find("undecided") != std::string::npos);
  CHECK(r->json["min_traffic"]["packets"] == 3000);  // 100 per second of a 30 s window
  // 5 a second each way, received and sent: 300 in the window.
  CHECK(r->json["windows"]["before"]["interfaces"]["eth0"]["packets"] == 300);

  // The same node under load: 200 packets a second is traffic, and the soak judges it.
  node.packets_per_s = 200;
  auto busy = soak_group(*root, clock, options(), [] { return Status(Ok{}); });
  REQUIRE(busy.ok());
  CHECK(busy->traffic);
  CHECK(busy->json["decision"] == "passed");

  // A link that starts flapping after the write is evidence with or without traffic.
  node.packets_per_s = 5;
  auto flapping = soak_group(*root, clock, options(), [&]() -> Status {
    node.flaps_per_s = 0.5;
    return Ok{};
  });
  REQUIRE(flapping.ok());
  CHECK_FALSE(flapping->traffic);
  CHECK(flapping->tripped);
  CHECK(flapping->json["decision"] == "tripped");
}

TEST_CASE("soak: a window of 0 writes and samples nothing; errors are returned") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  int writes = 0;
  auto r = soak_group(*root, clock, options(std::chrono::milliseconds(0)), [&]() -> Status {
    ++writes;
    return Ok{};
  });
  REQUIRE(r.ok());
  CHECK(writes == 1);
  CHECK_FALSE(r->ran);
  CHECK(clock.slept_.count() == 0);
  CHECK(r->json.is_null());

  auto failed =
      soak_group(*root, clock, options(), [] { return Status(Error::io("EPERM", "sysctl:t.x")); });
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().what == "EPERM");

  // An interface that vanished is an error, not "no drops".
  SoakOptions gone = options();
  gone.interfaces = {"eth9"};
  auto missing = soak_group(*root, clock, gone, [] { return Status(Ok{}); });
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().what.find("eth9") != std::string::npos);
}

TEST_CASE("soak: the link-flap prior is read from the uptime and each NIC's carrier changes") {
  testing::TempDir tmp;
  Node node(tmp.path);
  testing::write_file(node.path + "/proc/uptime", "3600.50 7100.20\n");
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto prior = read_flap_prior(*root, {"eth0"});
  REQUIRE(prior.ok());
  REQUIRE(prior->count("eth0"));
  CHECK(prior->at("eth0").events == 2);
  CHECK(prior->at("eth0").seconds == doctest::Approx(3600.5));
  // A NIC that is not there: no prior at all, not an error (the trials alone judge).
  auto gone = read_flap_prior(*root, {"eth0", "eth9"});
  REQUIRE(gone.ok());
  CHECK(gone->empty());
  // An uptime that is not one is an error naming the file.
  testing::write_file(node.path + "/proc/uptime", "soon\n");
  auto bad = read_flap_prior(*root, {"eth0"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().where == "proc/uptime");
}

namespace {

using loop_test::Rig;

/// The verify loop on a bench = [] group "irq" of sysctl:x, kept when neutral, on a node
/// whose retransmits are `tuned_retrans` while sysctl:x is tuned.
struct SoakRig {
  Rig rig;
  std::optional<GroupPlan::Reuse> reuse;  // a class decision reused (apply --decisions)
  Node node{rig.root_dir()};
  NodeClock clock{node};
  Result<GroupOutcome> verify(double tuned_retrans, RunReport* report) {
    return verify(
        [this, tuned_retrans] {
          return rig.m.values["sysctl:t.x"] == "tuned" ? tuned_retrans : 0.001;
        },
        {"sysctl:t.x"}, false, report);
  }
  /// The group of `knobs`, bisected when asked, on a node whose retransmit rate is
  /// retrans() (it may read the knobs).
  Result<GroupOutcome> verify(std::function<double()> retrans,
                              const std::vector<std::string>& knobs, bool bisect,
                              RunReport* report) {
    node.retrans_now = std::move(retrans);
    for (const std::string& k : knobs) rig.m.values.try_emplace(k, "default");
    Plan plan;
    plan.profiles = {"test"};
    for (const std::string& k : knobs)
      plan.changes.push_back({k, "irq", std::string("default"), "tuned", ""});
    auto run = ApplyRun::prepare(plan, rig.dir, rig.factory(), {});
    REQUIRE(run.ok());
    REQUIRE(run->begin().ok());
    LoopOptions o;
    o.guards.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
    o.guard_interfaces = {"eth0"};
    o.soak = std::chrono::seconds(20);
    VerifyLoop loop(*run, rig.root, clock, o);
    GroupPlan group{"irq", nullptr, true, Design::interleaved, bisect, {}, {}};
    group.reuse = reuse;
    auto out = loop.verify_group(group);
    if (out.ok()) {
      auto r = run->finish();
      REQUIRE(r.ok());
      *report = *r;
    }
    return out;
  }
};

}  // namespace

TEST_CASE("verify loop: a bench = [] group that raises retransmits is rolled back by the soak") {
  SoakRig s;
  RunReport report;
  auto out = s.verify(0.05, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
  CHECK(s.clock.slept_ >= std::chrono::seconds(40));
  CHECK(out->soak["decision"] == "tripped");
  CHECK(out->soak["window_s"] == 20.0);
  CHECK(out->error.find("guard tripped: tcp_retrans_pct") == 0);
  CHECK(to_json(*out)["error"] == out->error);
  CHECK(report.groups[0].changes[0].status != ChangeStatus::applied);
}

TEST_CASE("verify loop: a harmless bench = [] group passes the soak and is kept") {
  SoakRig s;
  RunReport report;
  auto out = s.verify(0.001, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::not_measurable_kept);
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK(out->soak["decision"] == "passed");
  CHECK(out->error.empty());
  CHECK_FALSE(to_json(*out).contains("error"));
}

TEST_CASE("verify loop: a soak with no workload traffic keeps as chosen, undecided") {
  SoakRig s;
  s.node.segs_per_s = 10;  // an idle node: a little TCP, a few broadcast frames
  s.node.packets_per_s = 5;
  RunReport report;
  auto out = s.verify(0.05, &report);  // it would retransmit, but nothing shows it
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::soak_undecided);  // not "not_measurable_kept": not shown harmless
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK(out->soak["decision"] == "no_traffic");
  CHECK(out->unmeasured.find("no workload traffic: undecided, kept as chosen (not shown "
                             "harmless)") != std::string::npos);
  nlohmann::json j = to_json(*out);
  CHECK(j["outcome"] == "soak_undecided");
  auto back = outcome_from_json(j);
  REQUIRE(back.ok());
  CHECK(back->decision == GroupDecision::kept);
  CHECK(back->reason == Reason::soak_undecided);
}

TEST_CASE("verify loop: a soak that trips is bisected, and the rest is kept when it passes") {
  SoakRig s;
  RunReport report;
  auto tuned = [&s](const char* k) {
    return s.rig.m.values["sysctl:" + std::string(k)] == "tuned";
  };
  auto out = s.verify([&] { return tuned("t.y") ? 0.05 : 0.001; },
                      {"sysctl:t.x", "sysctl:t.y", "sysctl:t.z", "sysctl:t.w"}, true, &report);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::partly_kept);
  CHECK(s.rig.m.values["sysctl:t.y"] == "default");
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK(s.rig.m.values["sysctl:t.z"] == "tuned");
  CHECK(s.rig.m.values["sysctl:t.w"] == "tuned");
  REQUIRE(out->bisect);
  CHECK(out->bisect->culprit == std::vector<std::string>{"sysctl:t.y"});
  // x,y trips; then x alone passes and y alone trips: three soaks, then the rest.
  REQUIRE(out->bisect->steps.size() == 3);
  CHECK(out->bisect->steps[0].outcome == StepOutcome::guard);
  CHECK(out->bisect->steps[1].outcome == StepOutcome::no_harm);
  CHECK(out->bisect->steps[2].knobs == std::vector<std::string>{"sysctl:t.y"});
  CHECK(out->bisect->steps[2].soak["decision"] == "tripped");
  REQUIRE(out->bisect->rest);
  CHECK(out->bisect->rest->outcome == Reason::not_measurable_kept);
  CHECK(out->bisect->rest->soak["decision"] == "passed");
  CHECK(out->bisect->note == "kept without sysctl:t.y");
  // The journal's copy reads back the same, without benchmark numbers for the soaks.
  nlohmann::json j = to_json(*out);
  CHECK_FALSE(j["bisect"]["steps"][0].contains("bench"));
  auto back = outcome_from_json(j);
  REQUIRE(back.ok());
  CHECK(to_json(*back) == j);
  for (const auto& g : report.groups)
    for (const auto& c : g.changes)
      CHECK((c.status == ChangeStatus::applied) == (c.knob != "sysctl:t.y"));
}

TEST_CASE("verify loop: a soak that trips only for knobs together rolls the whole group back") {
  SoakRig s;
  RunReport report;
  auto tuned = [&s](const char* k) {
    return s.rig.m.values["sysctl:" + std::string(k)] == "tuned";
  };
  auto out = s.verify([&] { return tuned("t.x") && tuned("t.y") ? 0.05 : 0.001; },
                      {"sysctl:t.x", "sysctl:t.y"}, true, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  REQUIRE(out->bisect);
  CHECK(out->bisect->note == "no part of the group trips a guard on its own");
  CHECK(out->bisect->steps.size() == 2);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
  CHECK(s.rig.m.values["sysctl:t.y"] == "default");
}

TEST_CASE("verify loop: without bisect a tripped soak is not bisected") {
  SoakRig s;
  RunReport report;
  auto out = s.verify([&] { return s.rig.m.values["sysctl:t.y"] == "tuned" ? 0.05 : 0.001; },
                      {"sysctl:t.x", "sysctl:t.y"}, false, &report);
  REQUIRE(out.ok());
  CHECK(out->reason == Reason::guard);
  CHECK_FALSE(out->bisect);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
}

namespace {

/// A class decision as reuse_of() builds it.
GroupPlan::Reuse class_reuse(bool write, Reason reason, const char* decision) {
  return {write, reason,
          nlohmann::json{{"class", "hw-0123456789abcdef"},
                         {"decision", decision},
                         {"chosen", nullptr},
                         {"canaries", {"node-a", "node-b"}},
                         {"file", "/etc/tuner/decisions.json"}}};
}

}  // namespace

TEST_CASE("verify loop: a class decision kept is written and soaked, never benchmarked") {
  SoakRig s;
  s.reuse = class_reuse(true, Reason::class_kept, "kept");
  RunReport report;
  auto out = s.verify(0.001, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::class_kept);
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK_FALSE(out->measured.has_value());
  CHECK(out->soak["decision"] == "passed");
  CHECK(out->class_decision["suspect"] == false);
  CHECK(out->unmeasured ==
        "class hw-0123456789abcdef (/etc/tuner/decisions.json): canaries node-a, node-b kept "
        "it: written, and watched by the soak only");
  // The journal's decision record reads back with the class decision.
  auto back = outcome_from_json(to_json(*out));
  REQUIRE(back.ok());
  CHECK(back->reason == Reason::class_kept);
  CHECK(back->decision == GroupDecision::kept);
  CHECK(back->class_decision == out->class_decision);
  CHECK(report.groups[0].stats["class_decision"]["canaries"].size() == 2);
}

TEST_CASE("verify loop: a class decision the soak trips on is put back here and suspect") {
  SoakRig s;
  s.reuse = class_reuse(true, Reason::class_kept, "kept");
  RunReport report;
  auto out = s.verify(0.05, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
  CHECK(out->class_decision["suspect"] == true);
  CHECK(out->error.find("guard tripped: tcp_retrans_pct") == 0);
  CHECK(out->error.find("the class's decision is suspect") != std::string::npos);
  CHECK(report.groups[0].stats["class_decision"]["suspect"] == true);
}

TEST_CASE("verify loop: a class decision rolled back or disputed is never written") {
  for (auto [reason, name] : {std::pair{Reason::class_rolled_back, "rolled_back"},
                              std::pair{Reason::class_disagree, "disagree"},
                              std::pair{Reason::class_undecided, "none"}}) {
    const char* decision = name;
    CAPTURE(decision);
    SoakRig s;
    s.reuse = class_reuse(false, reason, decision);
    RunReport report;
    auto out = s.verify(0.001, &report);
    REQUIRE(out.ok());
    CHECK(out->decision == GroupDecision::rolled_back);
    CHECK(out->reason == reason);
    CHECK(s.rig.m.writes.empty());
    CHECK(s.clock.slept_ == std::chrono::seconds(0));  // no soak, no trials
    CHECK(out->soak.is_null());
    CHECK(report.groups[0].changes[0].status == ChangeStatus::not_applied);
    CHECK(report.groups[0].stats["outcome"] == reason_name(reason));
  }
}
