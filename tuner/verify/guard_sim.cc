// tuner_guard_sim: how often the guards roll back a group, by simulation: harmless
// groups under background events (false rollbacks, also with retransmits in loss
// bursts) and harmful ones (the field case's retransmits beside a loopback benchmark's
// segments, a link that flaps at every flip), with the count tests of guard_decision.h
// beside the same tests without the dispersion (exact Poisson) and the raw-difference
// rule they replaced (bench::check_guards). The README's "Guards" table is its
// --markdown output.
//
//   tuner_guard_sim [--reps N] [--seed S] [--markdown]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tuner/verify/guard_decision.h"
#include "tuner/verify/schedule.h"

namespace {

using namespace tuner;
using namespace tuner::verify;

/// What happens on the node in one trial of each arm.
struct Scenario {
  const char* name;
  /// Per trial: TCP segments the namespace counts, the NIC's share of them, its
  /// retransmit rate on each arm (the rest, the loopback benchmark's own segments, never
  /// retransmits; the benchmark reports them, and the guard subtracts them).
  double segments = 20000, nic_share = 1, retrans_a = 0.001, retrans_b = 0.001;
  /// Per trial and interface (eth0, eth1): background drops, errors and carrier changes.
  double drops = 0.01, errors = 0.01, flaps = 0.01;
  /// Carrier changes on eth0 in the first candidate trial after each flip to B.
  unsigned flaps_per_flip = 0;
  /// The link-flap prior's uptime in seconds (0: none): each NIC's carrier changes since
  /// boot, the background rate over that time plus the 2 of the link coming up; trials
  /// of kTrialSeconds.
  double prior_seconds = 0;
  /// Segments retransmitted per loss episode (1: independent retransmits): episodes are
  /// Poisson with mean rate x NIC segments / burst.
  unsigned burst = 1;
};

constexpr double kTrialSeconds = 5;

struct Row {
  Design design;
  unsigned trials;
};

struct Tally {
  unsigned long tested = 0, poisson = 0, old_rule = 0;
};

bench::GuardLimits shipped_limits() {
  // The shipped profiles' guards (profiles/*.toml); nic_errors keeps its default of 0.
  bench::GuardLimits l = bench::GuardLimits::defaults();
  l.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
  return l;
}

Tally run(const Scenario& s, Row row, unsigned long reps, std::mt19937_64& rng) {
  Tally t;
  bench::GuardLimits limits = shipped_limits();
  for (unsigned long r = 0; r < reps; ++r) {
    std::vector<Arm> order = trial_order(row.design, row.trials, rng(), 3);
    bench::GuardDelta a, b;
    GuardTestConfig cfg;
    if (s.prior_seconds > 0)
      for (const char* ifname : {"eth0", "eth1"})
        cfg.flap_prior[ifname] = {
            2 + std::poisson_distribution<uint64_t>(s.flaps / kTrialSeconds * s.prior_seconds)(rng),
            s.prior_seconds};
    Arm previous = Arm::baseline;
    for (Arm arm : order) {
      bool candidate = arm == Arm::candidate;
      // The trial's counters as the loop reads them: /proc/net/snmp before and after,
      // the loopback benchmark's own segments from its sockets.
      auto nic_segs = static_cast<uint64_t>(s.segments * s.nic_share);
      double p = candidate ? s.retrans_b : s.retrans_a;
      uint64_t retrans = s.burst <= 1
                             ? std::binomial_distribution<uint64_t>(nic_segs, p)(rng)
                             : s.burst * std::poisson_distribution<uint64_t>(
                                             static_cast<double>(nic_segs) * p / s.burst)(rng);
      bench::GuardSample before, after;
      after.tcp = {static_cast<uint64_t>(s.segments), retrans};
      bench::Measurement m;
      bench::ConnectionCounters bench_segs{static_cast<uint64_t>(s.segments) - nic_segs, 0};
      m.connections = bench_segs;
      if (s.nic_share < 1) m.loopback = bench_segs;
      bench::GuardDelta d = bench::guard_delta(before, after, m);
      d.seconds = kTrialSeconds;
      for (const char* ifname : {"eth0", "eth1"}) {
        bench::NicCounters& n = d.nics[ifname];
        n.rx_dropped = std::poisson_distribution<uint64_t>(s.drops)(rng);
        n.rx_errors = std::poisson_distribution<uint64_t>(s.errors)(rng);
        n.carrier_changes = std::poisson_distribution<uint64_t>(s.flaps)(rng);
      }
      if (candidate && previous == Arm::baseline)
        d.nics["eth0"].carrier_changes += s.flaps_per_flip;
      previous = arm;
      (candidate ? b : a) += d;
    }
    t.tested += guard_trips(a, b, limits, cfg).empty() ? 0 : 1;
    cfg.dispersion = false;
    t.poisson += guard_trips(a, b, limits, cfg).empty() ? 0 : 1;
    t.old_rule += bench::check_guards(a, b, limits).empty() ? 0 : 1;
  }
  return t;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "tuner_guard_sim: %s\nusage: tuner_guard_sim [--reps N] [--seed S] [--markdown]\n",
               why);
  std::exit(2);
}

unsigned long long number(const char* s) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (!*s || *end || v == 0) usage("expected a positive number");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long reps = 10000;
  unsigned long long seed = 1;
  bool markdown = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = number(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = number(argv[++i]);
    else if (!std::strcmp(argv[i], "--markdown")) markdown = true;
    else usage("unknown argument");
  }
  const Scenario scenarios[] = {
      {"background: 0.01 events/trial, retransmits 0.1%"},
      {"background, busy: drops 3/trial, retransmits 0.3%", 20000, 1, 0.003, 0.003, 3},
      {"field case: retransmits 0.3% -> 7.8%, NIC 100% of segments", 20000, 1, 0.003, 0.078},
      {"field case, NIC 5% of 20000 segments/trial", 20000, 0.05, 0.003, 0.078},
      {"field case, NIC 5% of 2000 segments/trial", 2000, 0.05, 0.003, 0.078},
      {"field case, NIC 5% of 20000 segments/trial, bursts of 10", 20000, 0.05, 0.003, 0.078, 0.01,
       0.01, 0.01, 0, 0, 10},
      {"bursts of 10: retransmits 0.3%, 2000 segments/trial", 2000, 1, 0.003, 0.003, 0.01, 0.01,
       0.01, 0, 0, 10},
      {"bursts of 50: retransmits 0.3%, 2000 segments/trial", 2000, 1, 0.003, 0.003, 0.01, 0.01,
       0.01, 0, 0, 50},
      {"bursts of 10: retransmits 1%, 2000 segments/trial", 2000, 1, 0.01, 0.01, 0.01, 0.01, 0.01,
       0, 0, 10},
      {"bursts of 50: retransmits 1%, 2000 segments/trial", 2000, 1, 0.01, 0.01, 0.01, 0.01, 0.01,
       0, 0, 50},
      {"link flaps (down/up) at every flip to the candidate", 20000, 1, 0.001, 0.001, 0.01, 0.01,
       0.01, 2},
      {"background, flap prior: 1 h up", 20000, 1, 0.001, 0.001, 0.01, 0.01, 0.01, 0, 3600},
      {"background, flap prior: 10 min up", 20000, 1, 0.001, 0.001, 0.01, 0.01, 0.01, 0, 600},
      {"link flaps at every flip, flap prior: 1 h up", 20000, 1, 0.001, 0.001, 0.01, 0.01, 0.01, 2,
       3600},
      {"link flaps at every flip, flap prior: 10 min up", 20000, 1, 0.001, 0.001, 0.01, 0.01, 0.01,
       2, 600},
  };
  const Row rows[] = {{Design::interleaved, 5},  {Design::interleaved, 10},
                      {Design::interleaved, 20}, {Design::interleaved, 40},
                      {Design::blocked, 6},      {Design::blocked, 12},
                      {Design::blocked, 24},     {Design::blocked, 42}};
  std::mt19937_64 rng(seed);
  if (markdown)
    std::printf("| scenario | design | trials/arm | rolled back: count tests | exact Poisson (no "
                "dispersion) | raw difference (old) |\n"
                "| --- | --- | ---: | ---: | ---: | ---: |\n");
  for (const Scenario& s : scenarios)
    for (Row row : rows) {
      Tally t = run(s, row, reps, rng);
      auto n = static_cast<double>(reps);
      std::string design(design_name(row.design));
      if (markdown)
        std::printf("| %s | %s | %u | %.2f%% | %.2f%% | %.2f%% |\n", s.name, design.c_str(),
                    row.trials, 100.0 * static_cast<double>(t.tested) / n,
                    100.0 * static_cast<double>(t.poisson) / n,
                    100.0 * static_cast<double>(t.old_rule) / n);
      else
        std::printf("%-60s %-11s %3u  tests %6.2f%%  poisson %6.2f%%  old %6.2f%%\n", s.name,
                    design.c_str(), row.trials, 100.0 * static_cast<double>(t.tested) / n,
                    100.0 * static_cast<double>(t.poisson) / n,
                    100.0 * static_cast<double>(t.old_rule) / n);
      std::fflush(stdout);
    }
  return 0;
}
