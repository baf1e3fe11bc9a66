// The interference test (interference.h) on arms' per-trial loads: a load that follows
// the arms is proven and named; a steady one, or one below the floor, is not.
#include "tuner/verify/interference.h"

#include <doctest/doctest.h>

#include <random>

using namespace tuner;
using namespace tuner::verify;

namespace {

/// One trial of `seconds` with the others' CPU at `cpus` and `mbps` MB/s through the
/// interfaces; the benchmark stayed on lo unless `crossing`.
bench::LoadDelta trial(double cpus, double mbps = 0, bool crossing = false, double seconds = 1.0) {
  bench::LoadDelta d;
  d.seconds = seconds;
  d.other_cpu_s = cpus * seconds;
  d.interface_bytes = static_cast<uint64_t>(mbps * 1e6 * seconds);
  d.traffic_is_others = !crossing;
  return d;
}

bench::ProcessUse burner(double cpu_s) {
  return {2010, 1197282, "x) 1 R\n\033[2J 9", false, cpu_s, 65534U};
}

}  // namespace

TEST_CASE("interference: a burner on the baseline's trials only is proven and named") {
  InterferenceConfig cfg;
  OtherLoad a, b;
  const double busy[] = {1.52, 1.48, 1.61, 1.39, 1.55};
  for (double x : busy)
    a.add(trial(x), {burner(x - 0.02), {14, 25, "ksoftirqd/0", true, 0.01, 0U}}, cfg);
  // A shell that reaped a long job in one candidate trial: more asymmetric, but the
  // other way; the burner is named first.
  bool reaped = false;
  for (double x : {0.03, 0.01, 0.05, 0.02, 0.04}) {
    std::vector<bench::ProcessUse> uses = {{14, 25, "ksoftirqd/0", true, 0.01, 0U}};
    if (!reaped) uses.push_back({300, 99, "bash", false, 10.0, 0U});
    reaped = true;
    b.add(trial(x), uses, cfg);
  }
  Interference in = judge_interference(a, b, cfg);
  CHECK(in.flagged);
  CHECK(in.cpu.judged);
  CHECK(in.cpu.proven);
  CHECK(in.cpu.baseline == doctest::Approx(1.52));
  CHECK(in.cpu.candidate == doctest::Approx(0.03));
  CHECK(in.cpu.p == doctest::Approx(2.0 / 252));  // 5 and 5 apart, two-sided
  CHECK(in.cpu.trials_baseline == 5);
  CHECK_FALSE(in.traffic.proven);  // no traffic either way
  REQUIRE_FALSE(in.consumers.empty());
  CHECK(in.consumers[0].pid == 2010);
  CHECK(in.consumers[0].uid == 65534U);
  CHECK(in.consumers[0].baseline == doctest::Approx(1.49));
  CHECK(in.consumers[0].candidate == 0);
  REQUIRE(in.consumers.size() == 2);
  CHECK(in.consumers[1].pid == 300);
  CHECK(in.consumers[1].candidate == doctest::Approx(2.0));
  // ksoftirqd used the same in both: not asymmetric, not named.
  // The report's line: numbers, and the name with its escape code spelled out.
  CHECK(in.text.find("other CPU 1.52 CPUs in baseline trials, 0.03 in candidate trials") !=
        std::string::npos);
  CHECK(in.text.find("pid 2010 x) 1 R\\n\\x1b[2J 9 (uid 65534): 1.49 -> 0.00 CPUs") !=
        std::string::npos);
  CHECK(in.text.find('\033') == std::string::npos);
  CHECK(in.text.find('\n') == std::string::npos);
  // Either way round: a load only on the candidate's trials is proven too.
  CHECK(judge_interference(b, a, cfg).flagged);
}

TEST_CASE("interference: a steady background load in both arms is not flagged") {
  // A build beside the benchmark: about 1.2 CPUs in every trial, the arms randomised.
  InterferenceConfig cfg;
  std::mt19937_64 rng(11);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  std::normal_distribution<double> load(1.2, 0.3);
  int flagged = 0;
  const int reps = 2000;
  for (int r = 0; r < reps; ++r) {
    OtherLoad a, b;
    for (int i = 0; i < 10; ++i) {
      a.add(trial(load(rng), 5 + load(rng)), {}, cfg);
      b.add(trial(load(rng), 5 + load(rng)), {}, cfg);
    }
    flagged += judge_interference(a, b, cfg).flagged;
  }
  // The CPU test holds 1% two-sided; a background this noisy (0.3 CPU) is past the
  // floor whenever the test proves anything, so the floor takes little off it. The
  // traffic's 0.3 MB/s noise stays under its 1 MB/s floor.
  MESSAGE("steady load flagged in ", flagged, " of ", reps);
  CHECK(flagged <= reps * 0.0125);
}

TEST_CASE("interference: a proven difference below the floor is not flagged") {
  InterferenceConfig cfg;
  OtherLoad a, b;
  for (double x : {0.06, 0.07, 0.065, 0.062, 0.068, 0.07}) a.add(trial(x, 0.4), {}, cfg);
  for (double x : {0.01, 0.012, 0.008, 0.011, 0.009, 0.01}) b.add(trial(x, 0.1), {}, cfg);
  Interference in = judge_interference(a, b, cfg);
  CHECK(in.cpu.p < cfg.level);  // apart in every trial...
  CHECK_FALSE(in.cpu.proven);   // ...by 0.05 CPU, under the 0.1 floor
  CHECK(in.traffic.p < cfg.level);
  CHECK_FALSE(in.traffic.proven);  // 0.3 MB/s, under 1 MB/s
  CHECK_FALSE(in.flagged);
  CHECK(in.text.empty());
  CHECK_FALSE(interference_pending(a, b, cfg));
}

TEST_CASE("interference: traffic through the interfaces, judged only when it is all the others'") {
  InterferenceConfig cfg;
  OtherLoad a, b;
  for (int i = 0; i < 6; ++i) {
    a.add(trial(0.05, 40 + i), {}, cfg);  // a flood while the baseline is live
    b.add(trial(0.05, 0.1), {}, cfg);
  }
  Interference in = judge_interference(a, b, cfg);
  CHECK(in.traffic.judged);
  CHECK(in.traffic.proven);
  CHECK(in.flagged);
  CHECK(in.text.find("other traffic 42.5 MB/s in baseline trials, 0.1 MB/s in candidate trials") !=
        std::string::npos);
  // A benchmark whose own traffic may cross them (peer, netns, exec): not judged.
  OtherLoad c;
  for (int i = 0; i < 6; ++i) c.add(trial(0.05, 40 + i, true), {}, cfg);
  Interference crossing = judge_interference(c, b, cfg);
  CHECK_FALSE(crossing.traffic.judged);
  CHECK_FALSE(crossing.flagged);
  CHECK(crossing.traffic.note.find("not judged") != std::string::npos);
}

TEST_CASE("interference: a difference past the floor, not yet proven, asks for more trials") {
  InterferenceConfig cfg;
  OtherLoad a, b;
  for (double x : {1.5, 1.4, 0.02, 1.6, 1.45}) a.add(trial(x), {}, cfg);  // one trial missed
  for (double x : {0.03, 0.01, 0.05, 0.02, 0.04}) b.add(trial(x), {}, cfg);
  Interference in = judge_interference(a, b, cfg);
  CHECK(in.cpu.p > cfg.level);  // 24 of 252 orders, two-sided
  CHECK_FALSE(in.flagged);
  CHECK(interference_pending(a, b, cfg));
  // Five more of each and it is proven.
  for (double x : {1.5, 1.55, 1.4, 1.6, 1.45}) a.add(trial(x), {}, cfg);
  for (double x : {0.03, 0.01, 0.05, 0.02, 0.04}) b.add(trial(x), {}, cfg);
  CHECK(judge_interference(a, b, cfg).flagged);
  CHECK_FALSE(interference_pending(a, b, cfg));
}

TEST_CASE("interference: unreadable load and short arms prove nothing, and say why") {
  InterferenceConfig cfg;
  OtherLoad a, b;
  LoadReading none;
  none.error = "proc/stat: No such file or directory";
  a.add(none, none, bench::Measurement{}, Root::live(), cfg);
  b.add(trial(1.0), {}, cfg);
  b.add(trial(0.0, 0, false, 0.0), {}, cfg);  // no time passed
  CHECK(a.unmeasured == 1);
  CHECK(b.unmeasured == 1);
  Interference in = judge_interference(a, b, cfg);
  CHECK_FALSE(in.cpu.judged);
  CHECK_FALSE(in.flagged);
  CHECK(in.cpu.note == "the node's load could not be read: proc/stat: No such file or directory");
}

TEST_CASE("interference: the processes kept per arm are bounded, the largest kept") {
  InterferenceConfig cfg;
  cfg.tracked = 4;
  OtherLoad a;
  std::vector<bench::ProcessUse> many;
  for (int pid = 100; pid < 110; ++pid)
    many.push_back({pid, 1, "p" + std::to_string(pid), false, 0.01 * (pid - 99), std::nullopt});
  a.add(trial(0.5), many, cfg);
  CHECK(a.processes.size() == 4);
  CHECK(a.processes.count({109, 1}) == 1);
  CHECK(a.processes.count({100, 1}) == 0);
}
