// The verify loop on an in-memory machine: a benchmark whose result depends on the
// knob's live value (with seeded noise), guard counters in a fake /proc written by the
// benchmark, a FakeClock. Asserts what an operator sees: decision, machine state,
// journal and state.json.
#include "tuner/verify/loop.h"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "rollback/journal.h"
#include "rollback/rollback.h"
#include "rollback/state.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using namespace tuner::verify;

namespace {

struct Machine {
  std::map<std::string, std::string> values;
  std::vector<std::string> writes;
};

class MachineKnob : public Knob {
 public:
  MachineKnob(std::string id, Machine& m) : id_(std::move(id)), m_(m) {}
  const std::string& id() const override { return id_; }
  Result<std::string> read() override { return m_.values.at(id_); }
  Result<std::string> canonical(const std::string& d) override { return d; }
  Status write(const std::string& v) override {
    m_.writes.push_back(id_ + "=" + v);
    m_.values[id_] = v;
    return Ok{};
  }

 private:
  std::string id_;
  Machine& m_;
};

/// Measures "throughput": 1000 × (1 + effect when the knob holds the tuned value) ×
/// lognormal noise; optionally retransmits (in the fake /proc) while tuned.
class MachineBench : public bench::Benchmark {
 public:
  MachineBench(Machine& m, std::string root, double effect, double cv, unsigned seed)
      : m_(m), root_(std::move(root)), effect_(effect), noise_(0.0, cv), rng_(seed) {
    write_snmp();
  }
  const std::string& name() const override { return name_; }
  Status check() override { return Ok{}; }
  Result<bench::Measurement> run() override {
    ++runs_;
    bool tuned = m_.values.at("sysctl:x") == "tuned";
    if (fail_when_tuned_ && tuned) return Error::io("exit status 3", "fake-bench");
    out_segs_ += 10000;
    if (tuned) retrans_ += retrans_when_tuned_;
    write_snmp();
    double v = 1000.0 * (tuned ? 1 + effect_ : 1.0) * std::exp(noise_(rng_));
    return bench::Measurement{{{"throughput", v, "ops/s", bench::Direction::higher}}, {}};
  }
  void write_snmp() {
    std::ofstream f(root_ + "/proc/net/snmp");
    f << "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
         "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
      << "Tcp: 1 200 120000 -1 18 4 0 2 0 42026 " << out_segs_ << " " << retrans_ << " 0 3 0\n";
  }
  unsigned runs_ = 0;
  uint64_t retrans_when_tuned_ = 0;
  bool fail_when_tuned_ = false;

 private:
  Machine& m_;
  std::string root_;
  double effect_;
  std::normal_distribution<double> noise_;
  std::mt19937_64 rng_;
  std::string name_ = "machine";
  uint64_t out_segs_ = 100000, retrans_ = 0;
};

struct Rig {
  testing::TempDir tmp;
  Machine m;
  StateDir dir;
  Root root;
  FakeClock clock;
  Rig() : dir(open_dir(tmp.path)), root(open_root(tmp.path)) {
    ::chmod(tmp.path.c_str(), 0700);
    m.values = {{"sysctl:x", "default"}};
  }
  static StateDir open_dir(const std::string& base) {
    auto d = StateDir::open(base + "/state", true);
    REQUIRE(d.ok());
    return *d;
  }
  static Root open_root(const std::string& base) {
    std::filesystem::create_directories(base + "/root/proc/net");
    auto r = Root::open(base + "/root");
    REQUIRE(r.ok());
    return *r;
  }
  std::string root_dir() const { return tmp.path + "/root"; }
  KnobFactory factory() {
    return [this](const std::string& id) -> Result<std::unique_ptr<Knob>> {
      return std::unique_ptr<Knob>(new MachineKnob(id, m));
    };
  }
  /// One group "net" setting sysctl:x to "tuned", verified with bench.
  Result<GroupOutcome> verify(MachineBench& bench, bool keep_if_neutral = false,
                              LoopOptions options = {}) {
    Plan plan;
    plan.profiles = {"test"};
    plan.changes.push_back({"sysctl:x", "net", std::string("default"), "tuned", ""});
    auto run = ApplyRun::prepare(plan, dir, factory(), {});
    REQUIRE(run.ok());
    REQUIRE(run->begin().ok());
    options.decision.min_effect = 0.02;
    options.decision.false_keep_rate = 0.01;
    options.decision.max_trials = 30;
    VerifyLoop loop(*run, root, clock, options);
    auto out = loop.verify_group({"net", &bench, keep_if_neutral, Design::interleaved});
    if (out.ok()) REQUIRE(run->finish().ok());
    return out;
  }
  JournalRecord decision_record() const {
    auto runs = list_runs(dir);
    REQUIRE(runs.ok());
    auto text = read_journal(dir, runs->back());
    REQUIRE(text.ok());
    for (const auto& r : text->records)
      if (r.type == RecordType::decision) return r;
    FAIL("no decision record");
    return {};
  }
};

}  // namespace

TEST_CASE("verify loop: a real 10% gain is kept, journaled with its numbers, and stays") {
  Rig rig;
  MachineBench bench(rig.m, rig.root_dir(), 0.10, 0.02, 7);
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  INFO(out->stats.dump());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == "gain");
  CHECK(rig.m.values["sysctl:x"] == "tuned");
  JournalRecord d = rig.decision_record();
  CHECK(d.decision == "kept");
  CHECK(d.stats["effect"].get<double>() > 0.05);
  CHECK(d.stats["ci"][0].get<double>() > 0.02);
  CHECK(d.stats["trials"]["baseline"].get<unsigned>() >= 5);
  CHECK(d.stats["trials"]["baseline"] == d.stats["trials"]["candidate"]);
  CHECK(d.stats["unit"] == "ops/s");
  auto state = load_state(rig.dir);
  REQUIRE(state.ok());
  CHECK(state->knobs.count("sysctl:x") == 1);
  // Both arms were measured, alternately: the knob was flipped back and forth.
  CHECK(rig.m.writes.size() > 4);
  CHECK(rig.clock.slept() > std::chrono::milliseconds(0));  // settled after flips
}

TEST_CASE("verify loop: no effect is rolled back and the machine is as before") {
  Rig rig;
  MachineBench bench(rig.m, rig.root_dir(), 0.0, 0.02, 11);
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK((out->reason == "no_gain" || out->reason == "inconclusive"));
  CHECK(rig.m.values["sysctl:x"] == "default");
  auto state = load_state(rig.dir);
  REQUIRE(state.ok());
  CHECK(state->knobs.count("sysctl:x") == 0);
  CHECK(rig.decision_record().decision == "rolled_back");
}

TEST_CASE("verify loop: harm is rolled back early, whatever keep_if_neutral says") {
  Rig rig;
  MachineBench bench(rig.m, rig.root_dir(), -0.15, 0.02, 3);
  auto out = rig.verify(bench, /*keep_if_neutral=*/true);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == "harm");
  CHECK(rig.m.values["sysctl:x"] == "default");
  CHECK(bench.runs_ < 60);  // stopped before the budget of 30 per arm
}

TEST_CASE("verify loop: keep_if_neutral keeps a group with no proven effect") {
  Rig rig;
  MachineBench bench(rig.m, rig.root_dir(), 0.0, 0.02, 5);
  auto out = rig.verify(bench, /*keep_if_neutral=*/true);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == "neutral_kept");
  CHECK(rig.m.values["sysctl:x"] == "tuned");
}

TEST_CASE("verify loop: a gain that raises retransmits trips the guard and is rolled back") {
  Rig rig;
  MachineBench bench(rig.m, rig.root_dir(), 0.10, 0.02, 7);
  bench.retrans_when_tuned_ = 500;  // 5% of 10000 segments per trial
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == "guard");
  CHECK(out->stats["error"].get<std::string>().find("tcp_retrans_pct") != std::string::npos);
  CHECK(rig.m.values["sysctl:x"] == "default");
  bool tripped = false;
  for (const auto& g : out->stats["guards"])
    if (g["metric"] == "tcp_retrans_pct") tripped = g["tripped"].get<bool>();
  CHECK(tripped);
}

TEST_CASE("verify loop: a benchmark that fails rolls the group back and says why") {
  Rig rig;
  MachineBench bench(rig.m, rig.root_dir(), 0.10, 0.02, 7);
  bench.fail_when_tuned_ = true;
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == "bench_failed");
  CHECK(out->stats["error"].get<std::string>().find("exit status 3") != std::string::npos);
  CHECK(rig.m.values["sysctl:x"] == "default");
}

TEST_CASE("verify loop: past the time budget the group ends inconclusive and goes back") {
  Rig rig;
  MachineBench bench(rig.m, rig.root_dir(), 0.10, 0.02, 7);
  LoopOptions o;
  o.budget = std::chrono::seconds(1);
  o.settle = std::chrono::milliseconds(400);  // the fake clock advances only by settling
  auto out = rig.verify(bench, false, o);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == "budget");
  CHECK(rig.m.values["sysctl:x"] == "default");
}

TEST_CASE("verify loop: a group nothing can measure is not applied unless kept when neutral") {
  Rig rig;
  Plan plan;
  plan.profiles = {"test"};
  plan.changes.push_back({"sysctl:x", "irq", std::string("default"), "tuned", ""});
  auto run = ApplyRun::prepare(plan, rig.dir, rig.factory(), {});
  REQUIRE(run.ok());
  REQUIRE(run->begin().ok());
  VerifyLoop loop(*run, rig.root, rig.clock, {});
  auto out = loop.verify_group({"irq", nullptr, false, Design::interleaved});
  REQUIRE(out.ok());
  CHECK(out->reason == "not_measurable");
  CHECK(rig.m.values["sysctl:x"] == "default");
  CHECK(rig.m.writes.empty());
  auto report = run->finish();
  REQUIRE(report.ok());
  CHECK(report->changed == false);
  CHECK(report->groups[0].changes[0].status == ChangeStatus::not_applied);
}
