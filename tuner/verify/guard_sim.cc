// tuner_guard_sim: how often the guards roll back a group, by simulation: harmless
// groups under background events (false rollbacks, also with retransmits in loss
// bursts) and harmful ones (the field case's retransmits beside a loopback benchmark's
// segments), with the count tests of guard_decision.h beside the same tests without the
// dispersion (exact Poisson) and the raw-difference rule they replaced
// (bench::check_guards). The README's "Guards" table is its --markdown output; --flaps
// runs the link-flap scenarios instead (knobs that renegotiate the link, links that flap
// in the trials, the since-boot floor at 10 minutes, an hour and a day of uptime): the
// README's "Link flaps" table.
//
//   tuner_guard_sim [--reps N] [--seed S] [--markdown] [--flaps]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <utility>
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
  uint64_t flaps_per_flip = 0;
  /// The link-flap prior's uptime in seconds (0: none): each NIC's carrier changes since
  /// boot, the background rate over that time plus the 2 of the link coming up; trials
  /// of kTrialSeconds.
  double prior_seconds = 0;
  /// Segments retransmitted per loss episode (1: independent retransmits): episodes are
  /// Poisson with mean rate x NIC segments / burst.
  uint64_t burst = 1;
  // The link-flap scenarios' fields (--flaps), last: main()'s other scenarios are
  // written positionally.
  /// The background rate before the run, per trial's time (negative: `flaps`): a link
  /// that flaps more now than its boot average has boot_flaps < flaps.
  double boot_flaps = -1;
  /// Down/up episodes (2 carrier changes each) on eth0 per candidate trial, Poisson: a
  /// knob that makes the link flap while it is live.
  double flap_pairs_b = 0;
  /// Carrier changes on eth0 in the first trial after every write, both directions
  /// (flips, washes, the group's first write): a knob whose write renegotiates the link
  /// so late that the loop's settle window missed it (inside the window they are
  /// expected and never reach the counts).
  uint64_t flaps_per_write = 0;
};

constexpr double kTrialSeconds = 5;

struct Row {
  Design design;
  unsigned trials;
};

struct Tally {
  unsigned long tested = 0, poisson = 0, old_rule = 0;
  unsigned long pooled = 0;  // the link-flap test before issue 40 (pooled_trips)
};

bench::GuardLimits shipped_limits() {
  // The shipped profiles' guards (profiles/*.toml); nic_errors keeps its default of 0.
  bench::GuardLimits l = bench::GuardLimits::defaults();
  l.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
  return l;
}

/// The link-flap test before issue 40, for the --flaps table: the since-boot prior pooled
/// with the baseline trials per second (trials alone without a prior), the other
/// guards as now.
bool pooled_trips(const bench::GuardDelta& a, const bench::GuardDelta& b,
                  const bench::GuardLimits& limits, const GuardTestConfig& cfg) {
  for (const bench::GuardTrip& t : guard_trips(a, b, limits, cfg))
    if (t.metric != bench::GuardMetric::link_flaps) return true;
  for (const auto& [ifname, nb] : b.nics) {
    auto na = a.nics.find(ifname);
    uint64_t xa = na == a.nics.end() ? 0 : na->second.carrier_changes;
    Counts c{xa, static_cast<double>(a.trials), nb.carrier_changes, static_cast<double>(b.trials)};
    if (auto prior = cfg.flap_prior.find(ifname); prior != cfg.flap_prior.end())
      c = {xa + prior->second.events, a.seconds + prior->second.seconds, nb.carrier_changes,
           b.seconds};
    if (rate_ratio_p(c, 1.0) <= cfg.level) return true;
  }
  return false;
}

Tally run(const Scenario& s, Row row, unsigned long reps, std::mt19937_64& rng) {
  Tally t;
  bench::GuardLimits limits = shipped_limits();
  for (unsigned long r = 0; r < reps; ++r) {
    std::vector<Arm> order = trial_order(row.design, row.trials, rng(), 3);
    bench::GuardDelta a, b;
    GuardTestConfig cfg;
    double boot = s.boot_flaps < 0 ? s.flaps : s.boot_flaps;
    if (s.prior_seconds > 0)
      for (const char* ifname : {"eth0", "eth1"})
        cfg.flap_prior[ifname] = {
            2 + std::poisson_distribution<uint64_t>(boot / kTrialSeconds * s.prior_seconds)(rng),
            s.prior_seconds};
    // The loop writes the group (the candidate) before its first trial.
    Arm previous = Arm::candidate;
    for (std::size_t i = 0; i < order.size(); ++i) {
      Arm arm = order[i];
      bool candidate = arm == Arm::candidate;
      // The trial's counters as the loop reads them: /proc/net/snmp before and after,
      // the loopback benchmark's own segments from its sockets.
      bool written = i == 0 || arm != previous || wash_before(order, i, unit_trials(row.design, 3));
      auto nic_segs = static_cast<uint64_t>(s.segments * s.nic_share);
      double p = candidate ? s.retrans_b : s.retrans_a;
      uint64_t retrans = s.burst <= 1 ? std::binomial_distribution<uint64_t>(nic_segs, p)(rng)
                                      : s.burst * std::poisson_distribution<uint64_t>(
                                                      static_cast<double>(nic_segs) * p /
                                                      static_cast<double>(s.burst))(rng);
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
      if (written) d.nics["eth0"].carrier_changes += s.flaps_per_write;
      if (candidate && s.flap_pairs_b > 0)
        d.nics["eth0"].carrier_changes += 2 *
                                          std::poisson_distribution<uint64_t>(s.flap_pairs_b)(rng);
      previous = arm;
      (candidate ? b : a) += d;
    }
    t.tested += guard_trips(a, b, limits, cfg).empty() ? 0 : 1;
    t.pooled += pooled_trips(a, b, limits, cfg) ? 1 : 0;
    t.old_rule += bench::check_guards(a, b, limits).empty() ? 0 : 1;
    cfg.dispersion = false;
    t.poisson += guard_trips(a, b, limits, cfg).empty() ? 0 : 1;
  }
  return t;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "tuner_guard_sim: %s\nusage: tuner_guard_sim [--reps N] [--seed S] [--markdown] "
               "[--flaps]\n",
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
  bool markdown = false, flaps = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = number(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = number(argv[++i]);
    else if (!std::strcmp(argv[i], "--markdown")) markdown = true;
    else if (!std::strcmp(argv[i], "--flaps")) flaps = true;
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
  };
  // The link-flap scenarios (--flaps): background 0.01 carrier changes per trial unless
  // said; uptimes of 10 minutes, an hour and a day (0: no prior).
  struct Flap {
    const char* name;
    double up;
    unsigned per_write = 0, per_flip = 0;
    double pairs_b = 0, now = 0.01, boot = -1;
  };
  const Flap flap_rows[] = {
      {"renegotiates on every write, late: 10 min up", 600, 2},
      {"renegotiates on every write, late: 1 h up", 3600, 2},
      {"renegotiates on every write, late: 1 day up", 86400, 2},
      {"renegotiates on every write, late: no prior", 0, 2},
      {"flaps in candidate trials (1 down/up per trial): 10 min up", 600, 0, 0, 1},
      {"flaps in candidate trials (1 down/up per trial): 1 day up", 86400, 0, 0, 1},
      {"flaps in candidate trials (0.5 down/up per trial): 10 min up", 600, 0, 0, 0.5},
      {"flaps in candidate trials (0.5 down/up per trial): 1 day up", 86400, 0, 0, 0.5},
      {"flaps in candidate trials (0.5 down/up per trial): no prior", 0, 0, 0, 0.5},
      {"flaps at its own rate now (0.2/trial, boot 0.01/trial): 1 h up", 3600, 0, 0, 0, 0.2, 0.01},
      {"flaps at its own rate now (0.2/trial, boot 0.01/trial): 1 day up", 86400, 0, 0, 0, 0.2,
       0.01},
      {"one down/up after each flip to the candidate, late: no prior", 0, 0, 2},
      {"one down/up after each flip to the candidate, late: 1 h up", 3600, 0, 2},
      {"background, flap prior: 10 min up", 600},
      {"background, flap prior: 1 h up", 3600},
  };
  std::vector<Scenario> flap_scenarios;
  for (const Flap& f : flap_rows) {
    Scenario& s = flap_scenarios.emplace_back(Scenario{f.name});
    s.prior_seconds = f.up;
    s.flaps_per_write = f.per_write;
    s.flaps_per_flip = f.per_flip;
    s.flap_pairs_b = f.pairs_b;
    s.flaps = f.now;
    s.boot_flaps = f.boot;
  }
  std::vector<Scenario> main_scenarios(std::begin(scenarios), std::end(scenarios));
  const std::vector<Scenario>& chosen = flaps ? flap_scenarios : main_scenarios;
  const Row rows[] = {{Design::interleaved, 5},  {Design::interleaved, 10},
                      {Design::interleaved, 20}, {Design::interleaved, 40},
                      {Design::blocked, 6},      {Design::blocked, 12},
                      {Design::blocked, 24},     {Design::blocked, 42}};
  std::mt19937_64 rng(seed);
  if (markdown)
    std::printf(
        "| scenario | design | trials/arm | rolled back: count tests |%s raw difference (old) |\n"
        "| --- | --- | ---: | ---: | ---: | ---: |\n",
        flaps ? " flap prior pooled (before issue 40) |" : " exact Poisson (no dispersion) |");
  for (const Scenario& s : chosen)
    for (Row row : rows) {
      Tally t = run(s, row, reps, rng);
      auto pct = [&](unsigned long k) {
        return 100.0 * static_cast<double>(k) / static_cast<double>(reps);
      };
      std::string design(design_name(row.design));
      // The extra column: the pooled flap test (--flaps) or the exact Poisson test.
      char pooled[64] = "";
      std::snprintf(pooled, sizeof pooled,
                    markdown ? " %.2f%% |" : (flaps ? "  pooled %6.2f%%" : "  poisson %6.2f%%"),
                    pct(flaps ? t.pooled : t.poisson));
      if (markdown)
        std::printf("| %s | %s | %u | %.2f%% |%s %.2f%% |\n", s.name, design.c_str(), row.trials,
                    pct(t.tested), pooled, pct(t.old_rule));
      else
        std::printf("%-60s %-11s %3u  tests %6.2f%%%s  old %6.2f%%\n", s.name, design.c_str(),
                    row.trials, pct(t.tested), pooled, pct(t.old_rule));
      std::fflush(stdout);
    }
  return 0;
}
