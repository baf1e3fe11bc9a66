// The verify loop's link settle windows: carrier changes a knob's own write causes
// (both directions, however late inside the window) are expected and kept out of the
// link-flap guard's counts; a link that flaps while the candidate is live still trips.
#include <filesystem>
#include <map>

#include <doctest/doctest.h>
#include <fmt/core.h>

#include "tests/support/files.h"
#include "tuner/verify/loop_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::loop_test;
using namespace std::chrono_literals;

namespace {

/// eth0's carrier in a fake root: changes scheduled at times of a clock, written to
/// sys/class/net/eth0/carrier_changes when the clock passes them.
struct Link {
  std::string root;
  uint64_t carrier = 2;
  std::multimap<Clock::time_point, unsigned> pending;
  explicit Link(std::string dir) : root(std::move(dir)) {
    std::filesystem::create_directories(root + "/sys/class/net/eth0");
    testing::write_file(
        root + "/proc/net/dev",
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
        "packets errs drop fifo colls carrier compressed\n"
        "  eth0: 100 500 0 0 0 0 0 0 100 500 0 0 0 0 0 0\n");
    write();
  }
  void write() const {
    testing::write_file(root + "/sys/class/net/eth0/carrier_changes", fmt::format("{}\n", carrier));
  }
  void run_until(Clock::time_point t) {
    while (!pending.empty() && pending.begin()->first <= t) {
      carrier += pending.begin()->second;
      pending.erase(pending.begin());
    }
    write();
  }
};

/// A clock on which sleeping lets the link's scheduled changes happen.
class LinkClock final : public Clock {
 public:
  explicit LinkClock(Link& l) : link_(l) {}
  time_point now() override { return now_; }
  void sleep_for(duration d) override {
    now_ += d;
    slept += d;
    link_.run_until(now_);
  }
  duration slept{0};

 private:
  Link& link_;
  time_point now_{};
};

/// nic:eth0:channels on the rig's machine: every write takes the link down 300 ms later
/// and up at 600 ms (a driver that resets the device after the SET returned: past the
/// loop's 100 ms settle, inside its link window).
class ChannelsKnob : public Knob {
 public:
  ChannelsKnob(std::string id, Machine& m, Link& l, LinkClock& c)
      : id_(std::move(id)), m_(m), link_(l), clock_(c) {}
  const std::string& id() const override { return id_; }
  Result<std::string> read() override { return m_.values.at(id_); }
  Result<std::string> canonical(const std::string& d) override { return d; }
  Status write(const std::string& v) override {
    m_.writes.push_back(id_ + "=" + v);
    m_.values[id_] = v;
    link_.pending.emplace(clock_.now() + 300ms, 1);
    link_.pending.emplace(clock_.now() + 600ms, 1);
    return Ok{};
  }

 private:
  std::string id_;
  Machine& m_;
  Link& link_;
  LinkClock& clock_;
};

/// The rig's benchmark, each trial 5 s on the link clock; with flap_when_tuned, the
/// link goes down and up mid-trial whenever the knob is tuned.
class TimedBench : public bench::Benchmark {
 public:
  TimedBench(KnobsBench& inner, LinkClock& clock, Link& link, Machine& m, std::string knob)
      : inner_(inner), clock_(clock), link_(link), m_(m), knob_(std::move(knob)) {}
  const std::string& name() const override { return inner_.name(); }
  Status check() override { return Ok{}; }
  Result<bench::Measurement> run() override {
    if (flap_when_tuned && m_.values.at(knob_) == "tuned") {
      link_.pending.emplace(clock_.now() + 2s, 1);
      link_.pending.emplace(clock_.now() + 3s, 1);
    }
    clock_.sleep_for(5s);
    return inner_.run();
  }
  bool flap_when_tuned = false;

 private:
  KnobsBench& inner_;
  LinkClock& clock_;
  Link& link_;
  Machine& m_;
  std::string knob_;
};

struct FlapRig {
  const std::string knob = "nic:eth0:channels";
  Rig rig{{knob}};
  Link link{rig.root_dir()};
  LinkClock clock{link};
  KnobsBench inner = rig.bench({{knob, {0.10}}}, 11);
  TimedBench bench{inner, clock, link, rig.m, knob};

  Result<GroupOutcome> verify(Design design, LoopOptions options = {}) {
    Plan plan;
    plan.profiles = {"test"};
    plan.changes.push_back({knob, "net", std::string("default"), "tuned", ""});
    KnobFactory factory = [this](const std::string& id) -> Result<std::unique_ptr<Knob>> {
      return std::unique_ptr<Knob>(new ChannelsKnob(id, rig.m, link, clock));
    };
    auto run = ApplyRun::prepare(plan, rig.dir, factory, {});
    REQUIRE(run.ok());
    REQUIRE(run->begin().ok());
    options.decision.min_effect = 0.02;
    options.decision.false_keep_rate = 0.01;
    options.decision.max_trials = 30;
    options.guard_interfaces = {"eth0"};
    // The node has been up ten hours; its link came up once at boot.
    options.guard_test.flap_prior["eth0"] = {2, 36000};
    VerifyLoop loop(*run, rig.root, clock, options);
    auto out = loop.verify_group({"net", &bench, false, design, false, {}});
    if (out.ok()) REQUIRE(run->finish().ok());
    return out;
  }
};

const GuardResult* flaps_row(const GroupOutcome& o) {
  if (!o.measured) return nullptr;
  for (const GuardResult& g : o.measured->guards)
    if (g.metric == bench::GuardMetric::link_flaps && g.interface == "eth0") return &g;
  return nullptr;
}

}  // namespace

TEST_CASE("verify loop: a knob that renegotiates the link on every write is kept") {
  for (Design design : {Design::blocked, Design::interleaved}) {
    CAPTURE(design_name(design));
    FlapRig f;
    auto out = f.verify(design);
    REQUIRE(out.ok());
    CHECK(out->decision == GroupDecision::kept);
    CHECK(out->reason == Reason::gain);
    const GuardResult* row = flaps_row(*out);
    REQUIRE(row);
    CHECK_FALSE(row->tripped);
    // Every write's down/up came inside its settle window: none in the trials, each
    // arm's counted as expected (2 per write to it, washes included).
    REQUIRE(row->counts);
    CHECK(row->counts->x_b == 0);
    CHECK(row->counts->x_c == 0);
    REQUIRE(row->expected);
    CHECK(row->expected->baseline >= 2);
    CHECK(row->expected->candidate >= 2);
    CHECK(row->expected->baseline % 2 == 0);
    // Every write but the last (the loop leaves the group kept) was measured around.
    CHECK(row->expected->baseline + row->expected->candidate + 2 ==
          2 * static_cast<uint64_t>(f.rig.m.writes.size()));
    CHECK(f.rig.m.values[f.knob] == "tuned");
  }
}

TEST_CASE("verify loop: without the link window the same knob's flaps land in the trials") {
  // The window as short as the plain settle: each write's down/up falls in the next
  // trial of the arm written, on both arms alike; the trials are compared with the
  // trials (the since-boot rate a floor only), so the group is still not rolled back.
  FlapRig f;
  LoopOptions o;
  o.link_settle = o.settle;
  auto out = f.verify(Design::blocked, o);
  REQUIRE(out.ok());
  const GuardResult* row = flaps_row(*out);
  REQUIRE(row);
  REQUIRE(row->counts);
  CHECK(row->counts->x_b > 0);
  CHECK(row->counts->x_c > 0);
  CHECK_FALSE(row->tripped);
  CHECK(out->reason != Reason::guard);
}

TEST_CASE("verify loop: a knob that makes the link flap in its trials is rolled back") {
  FlapRig f;
  f.bench.flap_when_tuned = true;
  auto out = f.verify(Design::blocked);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  REQUIRE(out->measured);
  CHECK(out->measured->error.find("link_flaps eth0") != std::string::npos);
  const GuardResult* row = flaps_row(*out);
  REQUIRE(row);
  CHECK(row->tripped);
  REQUIRE(row->expected);
  CHECK(row->expected->candidate >= 2);
  CHECK(f.rig.m.values[f.knob] == "default");
}

TEST_CASE("verify loop: a knob that cannot drop the link waits only the plain settle") {
  // A sysctl on a link that never moves: no link window, 100 ms per write.
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.10}}}, 7);
  Link link(rig.root_dir());
  LoopOptions o;
  o.guard_interfaces = {"eth0"};
  auto out = rig.verify(bench, false, o);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(rig.clock.slept() == 100ms * static_cast<long>(rig.m.writes.size()));
  const GuardResult* row = flaps_row(*out);
  REQUIRE(row);
  REQUIRE(row->expected);
  CHECK(row->expected->baseline == 0);
  CHECK(row->expected->candidate == 0);
}
