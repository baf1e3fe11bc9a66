// The verify loop's test rig: an in-memory machine whose knobs hold "default" or
// "tuned", benchmarks whose results depend on those values (with seeded noise), guard
// counters in a fake /proc written by the benchmark, and a FakeClock.
#pragma once

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "rollback/journal.h"
#include "rollback/rollback.h"
#include "rollback/state.h"
#include "tests/support/temp_dir.h"
#include "tuner/verify/loop.h"

namespace tuner::verify::loop_test {

struct Machine {
  std::map<std::string, std::string> values;
  std::vector<std::string> writes;
  /// "knob=value" writes the kernel refuses (EINVAL): a value plan could not rule out.
  std::set<std::string> refuse;
};

class MachineKnob : public Knob {
 public:
  MachineKnob(std::string id, Machine& m) : id_(std::move(id)), m_(m) {}
  const std::string& id() const override { return id_; }
  Result<std::string> read() override { return m_.values.at(id_); }
  Result<std::string> canonical(const std::string& d) override { return d; }
  Status write(const std::string& v) override {
    if (m_.refuse.contains(id_ + "=" + v))
      return Error::refused("the kernel refused '" + v + "' (Invalid argument)", id_, EINVAL);
    m_.writes.push_back(id_ + "=" + v);
    m_.values[id_] = v;
    return Ok{};
  }

 private:
  std::string id_;
  Machine& m_;
};

/// Measures "throughput": 1000 x (1 + gain) for each knob holding "tuned" x lognormal
/// noise (2% CV); each tuned knob adds its retransmits (per 10000 segments) to the
/// fake /proc/net/snmp. What a bisect has to take apart.
class KnobsBench : public bench::Benchmark {
 public:
  struct Effect {
    double gain = 0;
    uint64_t retrans = 0;
  };
  KnobsBench(Machine& m, std::string root, std::map<std::string, Effect> effects, unsigned seed)
      : m_(m), root_(std::move(root)), effects_(std::move(effects)), noise_(0.0, 0.02), rng_(seed) {
    write_snmp();
  }
  const std::string& name() const override { return name_; }
  Status check() override { return Ok{}; }
  Result<bench::Measurement> run() override {
    ++runs_;
    bool any_tuned = false, all_tuned = true;
    for (const auto& [knob, e] : effects_) {
      bool tuned = m_.values.at(knob) == "tuned";
      any_tuned = any_tuned || tuned;
      all_tuned = all_tuned && tuned;
    }
    if (fail_when_tuned_ && any_tuned) return Error::io("exit status 3", "fake-bench");
    double v = 1000.0;
    out_segs_ += 10000;
    for (const auto& [knob, e] : effects_) {
      if (m_.values.at(knob) != "tuned") continue;
      v *= 1 + e.gain;
      retrans_ += e.retrans;
    }
    if (all_tuned) v *= 1 + together_;  // an effect only the whole group has
    write_snmp();
    return bench::Measurement{
        {{"throughput", v * std::exp(noise_(rng_)), "ops/s", bench::Direction::higher}},
        {},
        {},
        {}};
  }
  void write_snmp() {
    std::ofstream f(root_ + "/proc/net/snmp");
    f << "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
         "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
      << "Tcp: 1 200 120000 -1 18 4 0 2 0 42026 " << out_segs_ << " " << retrans_ << " 0 3 0\n";
  }
  unsigned runs_ = 0;
  double together_ = 0;
  bool fail_when_tuned_ = false;

 private:
  Machine& m_;
  std::string root_;
  std::map<std::string, KnobsBench::Effect> effects_;
  std::normal_distribution<double> noise_;
  std::mt19937_64 rng_;
  std::string name_ = "knobs";
  uint64_t out_segs_ = 100000, retrans_ = 0;
};

/// One group "net" of `knobs`, each set from "default" to "tuned", verified on a fresh
/// state dir and fake root.
struct Rig {
  testing::TempDir tmp;
  Machine m;
  StateDir dir;
  Root root;
  FakeClock clock;
  std::vector<std::string> knobs;
  std::vector<bench::Benchmark*> watches;
  explicit Rig(std::vector<std::string> ids = {"sysctl:t.x"})
      : dir(open_dir(tmp.path)), root(open_root(tmp.path)), knobs(std::move(ids)) {
    ::chmod(tmp.path.c_str(), 0700);
    for (const auto& k : knobs) m.values[k] = "default";
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
  /// A benchmark of this rig's machine: `effects` by knob id.
  KnobsBench bench(std::map<std::string, KnobsBench::Effect> effects, unsigned seed) {
    return {m, root_dir(), std::move(effects), seed};
  }
  Result<GroupOutcome> verify(KnobsBench& bench, bool keep_if_neutral = false,
                              LoopOptions options = {}, bool bisect = false,
                              RunReport* report = nullptr) {
    Plan plan;
    plan.profiles = {"test"};
    for (const auto& k : knobs)
      plan.changes.push_back({k, "net", std::string("default"), "tuned", ""});
    auto run = ApplyRun::prepare(plan, dir, factory(), {});
    REQUIRE(run.ok());
    REQUIRE(run->begin().ok());
    options.decision.min_effect = 0.02;
    options.decision.false_keep_rate = 0.01;
    options.decision.max_trials = 30;
    VerifyLoop loop(*run, root, clock, options);
    auto out =
        loop.verify_group({"net", &bench, keep_if_neutral, Design::interleaved, bisect, watches});
    if (out.ok()) {
      auto r = run->finish();
      REQUIRE(r.ok());
      if (report) *report = *r;
    }
    return out;
  }
  /// verify() with bisect = true.
  Result<GroupOutcome> bisect(KnobsBench& bench, LoopOptions options = {},
                              RunReport* report = nullptr) {
    return verify(bench, false, std::move(options), true, report);
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

inline std::vector<std::string> strings_of(const nlohmann::json& j) {
  return j.get<std::vector<std::string>>();
}

}  // namespace tuner::verify::loop_test
