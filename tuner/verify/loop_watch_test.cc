// Watching benchmarks: a group's further benchmarks run beside the deciding one and
// roll it back on proven harm (loop_rig_test.h's machine).
#include "tuner/verify/loop.h"

#include <doctest/doctest.h>

#include "tuner/verify/loop_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::loop_test;

namespace {

/// A latency-like watch: lower is better, slower by `penalty` while `knob` is tuned.
class LatencyWatch : public bench::Benchmark {
 public:
  LatencyWatch(Machine& m, std::string knob, double penalty, unsigned seed, double cv = 0.02)
      : m_(m), knob_(std::move(knob)), penalty_(penalty), noise_(0.0, cv), rng_(seed) {}
  const std::string& name() const override { return name_; }
  Status check() override { return Ok{}; }
  Result<bench::Measurement> run() override {
    ++runs_;
    bool tuned = m_.values.at(knob_) == "tuned";
    if (fail_ && tuned) return Error::io("timed out after 5s", name_);
    double v = 100.0 * (tuned ? 1 + penalty_ : 1.0) * std::exp(noise_(rng_));
    return bench::Measurement{{{"p99", v, "us", bench::Direction::lower}}, {}, {}, {}};
  }
  unsigned runs_ = 0;
  bool fail_ = false;

 private:
  Machine& m_;
  std::string knob_;
  double penalty_;
  std::normal_distribution<double> noise_;
  std::mt19937_64 rng_;
  std::string name_ = "lat";
};

}  // namespace

TEST_CASE("verify loop watches: a gain that makes a watching benchmark worse goes back") {
  Rig rig({"sysctl:t.a"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.10, 0}}}, 7);
  LatencyWatch lat(rig.m, "sysctl:t.a", 0.30, 8);
  rig.watches = {&lat};
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  REQUIRE(out->measured);
  CHECK(out->measured->verdict == Verdict::keep);  // the main metric alone would have kept it
  REQUIRE(out->measured->watches.size() == 1);
  CHECK(out->measured->watches[0].bench == "lat");
  CHECK(out->measured->watches[0].tripped);
  CHECK(out->measured->watches[0].stats.effect < -0.2);
  CHECK(out->measured->error.find("benchmark lat: effect -") != std::string::npos);
  CHECK(lat.runs_ == bench.runs_);  // run in every trial
  CHECK(rig.m.values["sysctl:t.a"] == "default");
}

TEST_CASE("verify loop watches: a watch with no proven harm lets the gain stay") {
  Rig rig({"sysctl:t.a"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.10, 0}}}, 7);
  LatencyWatch lat(rig.m, "sysctl:t.a", 0.0, 8);
  rig.watches = {&lat};
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->reason == Reason::gain);
  REQUIRE(out->measured);
  REQUIRE(out->measured->watches.size() == 1);
  CHECK_FALSE(out->measured->watches[0].tripped);
  CHECK(out->measured->watches[0].non_inferior);  // a loss of 2% is ruled out
  CHECK(out->measured->watches[0].margin == doctest::Approx(0.02));
  CHECK(rig.m.values["sysctl:t.a"] == "tuned");
}

TEST_CASE("verify loop watches: a watch that fails rolls the group back and says which") {
  Rig rig({"sysctl:t.a"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.10, 0}}}, 7);
  LatencyWatch lat(rig.m, "sysctl:t.a", 0.0, 8);
  lat.fail_ = true;
  rig.watches = {&lat};
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->reason == Reason::bench_failed);
  REQUIRE(out->measured);
  CHECK(out->measured->error == "benchmark lat failed on the candidate: lat: timed out after 5s");
  CHECK(rig.m.values["sysctl:t.a"] == "default");
}

TEST_CASE("verify loop watches: bisect finds the knob a watch blames") {
  Rig rig({"sysctl:t.a", "sysctl:t.b"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.10, 0}}, {"sysctl:t.b", {0.0, 0}}}, 7);
  LatencyWatch lat(rig.m, "sysctl:t.b", 0.30, 8);
  rig.watches = {&lat};
  auto out = rig.bisect(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->reason == Reason::partly_kept);
  CHECK(out->bisect->culprit == std::vector<std::string>{"sysctl:t.b"});
  CHECK(rig.m.values["sysctl:t.a"] == "tuned");
  CHECK(rig.m.values["sysctl:t.b"] == "default");
}

TEST_CASE("verify loop watches: a +5% gain that costs a watch 3% is not kept") {
  // The watch's loss (3%) is beyond its margin (min_effect, 2%): non-inferiority cannot
  // be shown, so the keep is blocked (it was kept 41% of the time when a watch only
  // vetoed proven harm). Target: kept <= 5%.
  int kept = 0, runs = 20;
  for (int seed = 1; seed <= runs; ++seed) {
    Rig rig({"sysctl:t.a"});
    KnobsBench bench = rig.bench({{"sysctl:t.a", {0.05, 0}}}, static_cast<unsigned>(seed));
    LatencyWatch lat(rig.m, "sysctl:t.a", 0.03, static_cast<unsigned>(100 + seed));
    rig.watches = {&lat};
    auto out = rig.verify(bench);
    REQUIRE(out.ok());
    kept += out->decision == GroupDecision::kept;
  }
  CHECK(kept <= 1);
}

TEST_CASE("verify loop watches: [verify] watch_margin lets a noisy watch that holds pass") {
  // A +10% gain; the watch does not change but is noisy (6%): in 30 trials a loss of
  // 2% (the default margin, min_effect) is seldom ruled out, one of 10% is. A loss the
  // watch is proven to have still rolls back whatever the margin (the test above).
  auto kept_with = [](double margin) {
    int kept = 0;
    for (int seed = 1; seed <= 10; ++seed) {
      Rig rig({"sysctl:t.a"});
      KnobsBench bench = rig.bench({{"sysctl:t.a", {0.10, 0}}}, static_cast<unsigned>(seed));
      LatencyWatch lat(rig.m, "sysctl:t.a", 0.0, static_cast<unsigned>(100 + seed), 0.06);
      rig.watches = {&lat};
      LoopOptions options;
      options.watch_margin = margin;
      auto out = rig.verify(bench, false, options);
      REQUIRE(out.ok());
      REQUIRE(out->measured);
      REQUIRE(out->measured->watches.size() == 1);
      CHECK(out->measured->watches[0].margin == doctest::Approx(margin < 0 ? 0.02 : margin));
      kept += out->decision == GroupDecision::kept;
    }
    return kept;
  };
  int by_default = kept_with(-1), wide = kept_with(0.10);
  CHECK(by_default <= 3);
  CHECK(wide >= 8);
}
