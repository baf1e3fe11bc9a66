// The verify loop with a neighbour (loop_rig_test.h's machine): a user who burns CPU
// while the baseline is live steers a no-effect change into a "gain"; the loop reads
// the rest of the node's load around every trial (a fake proc/stat and proc/PID/stat
// the benchmark advances) and rolls the group back as interference. A steady load
// beside a real gain decides as before.
#include "tuner/verify/loop.h"

#include <doctest/doctest.h>
#include <fmt/core.h>

#include <cmath>
#include <fstream>
#include <string>

#include "tuner/verify/loop_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::loop_test;

namespace {

/// KnobsBench on a node with a neighbour: each run is a 1 s window of 2 CPUs in the
/// fake proc/stat and proc/uptime, where the neighbour (pid 777, uid 65534) uses `steady` CPUs, and
/// `steer` CPUs more while no knob is tuned (the baseline), which slows the benchmark
/// by `slowdown`. The benchmark's own CPU is tuner's (rusage), not in the fake busy time.
class NeighbourBench : public KnobsBench {
 public:
  NeighbourBench(Rig& rig, std::map<std::string, Effect> effects, unsigned seed)
      : KnobsBench(rig.m, rig.root_dir(), std::move(effects), seed), rig_(rig) {
    std::filesystem::create_directories(rig.root_dir() + "/proc/777");
    tuner::testing::write_file(rig.root_dir() + "/proc/777/status",
                               "Name:\tburn\nUid:\t65534\t65534\t65534\t65534\n");
    std::ofstream(rig.root_dir() + "/proc/net/dev")
        << "Inter-|   Receive                                                |  Transmit\n"
           " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
           "errs drop fifo colls carrier compressed\n"
           "    lo: 89760047316 1915976    0    0    0     0          0         0 89760047316 "
           "1915976    0    0    0     0       0          0\n";
    write_load();
  }
  Result<bench::Measurement> run() override {
    auto m = KnobsBench::run();
    if (!m.ok()) return m;
    bool any_tuned = false;
    for (const auto& [knob, v] : rig_.m.values) any_tuned = any_tuned || v == "tuned";
    // Starts steering once it sees a partial arm (a bisect's half), when asked to.
    bool partial = false;
    for (const auto& [knob, v] : rig_.m.values) partial = partial || (any_tuned && v != "tuned");
    if (steer_from_partial && partial) steering = true;
    double other = steady;
    if (steering && !any_tuned) {
      other += steer;
      m->metrics[0].value *= 1 - slowdown;
    }
    busy_ += static_cast<uint64_t>(std::llround(other * 100));
    total_ += 200;
    uptime_ += 1.0;
    burner_ticks_ += static_cast<uint64_t>(std::llround(other * 100));
    write_load();
    m->loopback = bench::ConnectionCounters{};  // its own traffic stayed on lo
    return m;
  }
  bool steering = true;
  bool steer_from_partial = false;
  double steady = 0.02, steer = 1.5, slowdown = 0.4;

 private:
  void write_load() {
    uint64_t idle = total_ - busy_;
    tuner::testing::write_file(rig_.root_dir() + "/proc/stat",
                               fmt::format("cpu  {} 0 0 {} 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n"
                                           "cpu1 0 0 0 0 0 0 0 0 0 0\n",
                                           busy_, idle));
    tuner::testing::write_file(rig_.root_dir() + "/proc/uptime",
                               fmt::format("{:.2f} 1000.00\n", uptime_));
    tuner::testing::write_file(
        rig_.root_dir() + "/proc/777/stat",
        fmt::format("777 (burn) R 1 777 777 0 -1 4194304 0 0 0 0 {} 0 0 0 20 0 1 0 4242 0 0",
                    burner_ticks_));
  }
  Rig& rig_;
  uint64_t busy_ = 100000, total_ = 400000, burner_ticks_ = 0;
  double uptime_ = 2000.0;
};

}  // namespace

TEST_CASE("verify loop interference: a burner on the baseline steers no more: rolled back") {
  Rig rig;
  NeighbourBench bench(rig, {{"sysctl:t.x", {0.0}}}, 7);
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::interference);
  CHECK(rig.m.values["sysctl:t.x"] == "default");
  REQUIRE(out->measured);
  CHECK(out->measured->verdict == Verdict::keep);  // what the steered numbers said
  REQUIRE(out->measured->interference);
  const Interference& in = *out->measured->interference;
  CHECK(in.flagged);
  CHECK(in.cpu.baseline == doctest::Approx(1.52));
  CHECK(in.cpu.candidate == doctest::Approx(0.02));
  REQUIRE_FALSE(in.consumers.empty());
  CHECK(in.consumers[0].pid == 777);
  CHECK(in.consumers[0].comm == "burn");
  CHECK(in.consumers[0].uid == 65534U);
  CHECK(out->measured->error.rfind("interference: other CPU use 1.52 CPUs", 0) == 0);
  CHECK_FALSE(in.demand.judged);  // the fake /proc has no schedstat: use alone decides
  // The journal and the run document say so.
  JournalRecord d = rig.decision_record();
  CHECK(d.decision == GroupDecision::rolled_back);
  CHECK(d.stats["outcome"] == "interference");
  CHECK(d.stats["interference"]["flagged"] == true);
  CHECK(d.stats["interference"]["consumers"][0]["comm"] == "burn");
  auto back = outcome_from_json(d.stats);
  REQUIRE(back.ok());
  REQUIRE(back->measured->interference);
  CHECK(back->measured->interference->cpu.p == doctest::Approx(in.cpu.p));
}

TEST_CASE("verify loop interference: without the test the same steer is kept") {
  // What the security review found, and the reason for the test: +67% on a no-op.
  Rig rig;
  NeighbourBench bench(rig, {{"sysctl:t.x", {0.0}}}, 7);
  LoopOptions options;
  options.interference.enabled = false;
  auto out = rig.verify(bench, false, options);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::gain);
}

TEST_CASE("verify loop interference: a keep_if_neutral group is rolled back too") {
  Rig rig;
  NeighbourBench bench(rig, {{"sysctl:t.x", {0.0}}}, 9);
  bench.slowdown = 0.0;  // the burner slows nothing: the group would be kept as neutral
  auto out = rig.verify(bench, true);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::interference);
  CHECK(rig.m.values["sysctl:t.x"] == "default");
}

TEST_CASE("verify loop interference: a steady load beside a real gain decides as before") {
  Rig rig;
  NeighbourBench bench(rig, {{"sysctl:t.x", {0.10}}}, 7);
  bench.steering = false;
  bench.steady = 1.2;  // a build beside the benchmark, in every trial
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::gain);
  REQUIRE(out->measured->interference);
  CHECK_FALSE(out->measured->interference->flagged);
  CHECK(out->measured->interference->cpu.baseline == doctest::Approx(1.2));
  CHECK(out->measured->interference->cpu.judged);
  CHECK(out->measured->error.empty());
}

TEST_CASE("verify loop interference: a bisect half steered stops the bisect, the group goes back") {
  Rig rig({"sysctl:t.a", "sysctl:t.b"});
  NeighbourBench bench(rig, {{"sysctl:t.a", {-0.10}}, {"sysctl:t.b", {0.0}}}, 17);
  bench.steering = false;
  bench.steer_from_partial = true;  // quiet for the whole group, steers the halves
  auto out = rig.bisect(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::harm);  // the whole group's own, unsteered
  REQUIRE(out->bisect);
  CHECK_FALSE(out->bisect->complete);
  REQUIRE_FALSE(out->bisect->steps.empty());
  CHECK(out->bisect->steps.back().outcome == StepOutcome::interference);
  CHECK(out->bisect->note == "bisect stopped: interference");
  CHECK(rig.m.values["sysctl:t.a"] == "default");
  CHECK(rig.m.values["sysctl:t.b"] == "default");
}
